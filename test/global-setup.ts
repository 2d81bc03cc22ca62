import postgres from 'postgres';

/** A fresh database per test run on the machine's PostgreSQL (its name carries the runner's pid, so
 *  parallel runs do not share one); every suite makes its own teams inside it. */
const ADMIN_URL = process.env.WAYMARK_TEST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export default async function setup(): Promise<() => Promise<void>> {
  const name = `waymark_test_${process.pid}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  process.env.WAYMARK_TEST_DB = name;
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const { connect } = await import('../src/db/client.js');
  const { migrate } = await import('../src/db/migrate.js');
  const sql = connect(url, 1);
  await migrate(sql);
  await sql.end();
  return async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  };
}

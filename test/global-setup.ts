import postgres from 'postgres';

/** A fresh database per test run on the machine's PostgreSQL; every suite makes its own teams. */
export const TEST_DB = process.env.WAYMARK_TEST_DB ?? 'waymark_test';
const ADMIN_URL = process.env.WAYMARK_TEST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export default async function setup(): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${TEST_DB} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${TEST_DB}`);
  } finally {
    await admin.end();
  }
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${TEST_DB}`);
  process.env.DATABASE_URL = url;
  const { connect } = await import('../src/db/client.js');
  const { migrate } = await import('../src/db/migrate.js');
  const sql = connect(url, 1);
  await migrate(sql);
  await sql.end();
}

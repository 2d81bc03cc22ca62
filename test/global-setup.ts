import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  // Every response the suites check against the OpenAPI document is logged here (test/support/contract.ts).
  const contractDir = mkdtempSync(join(tmpdir(), 'waymark-contract-'));
  process.env.WAYMARK_CONTRACT_DIR = contractDir;
  return async () => {
    await reportContractCoverage(contractDir).catch((err) => console.error('contract coverage:', err));
    rmSync(contractDir, { recursive: true, force: true });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  };
}

/** Which documented operations the run's responses covered, with the statuses seen. */
async function reportContractCoverage(dir: string): Promise<void> {
  const seen = new Map<string, Set<string>>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const at = line.lastIndexOf(' ');
      if (at > 0) {
        const op = line.slice(0, at);
        if (!seen.has(op)) seen.set(op, new Set());
        seen.get(op)!.add(line.slice(at + 1));
      }
    }
  }
  if (!seen.size) return;
  const { contractDocument } = await import('./support/contract.js');
  const doc = contractDocument();
  const all = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );
  const missing = all.filter((op) => !seen.has(op));
  const responses = [...seen.values()].reduce((n, s) => n + s.size, 0);
  console.log(
    `\ncontract: ${all.length - missing.length} of ${all.length} documented operations received and checked (${responses} operation-status pairs)` +
      (missing.length ? `; not exercised in this run: ${missing.join(', ')}` : ''),
  );
}

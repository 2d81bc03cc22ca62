// What the peer runners share: the .feature files under a folder, and agreement as a percentage.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every .feature file under `dir`, in name order, subfolders included. */
export function featureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...featureFiles(path));
    else if (name.endsWith('.feature')) out.push(path);
  }
  return out;
}

export const pct = (a: number, n: number): string => (n === 0 ? '-' : `${((100 * a) / n).toFixed(1)} %`);

/** What a file's report needs for the totals: its counts and its rows' status and why. */
interface CountedReport {
  agree: number;
  disagree: number;
  rows: ReadonlyArray<{ status: string; detail?: string }>;
}

/** The skipped rows by reason, then the total agreement over every file (the line CI prints). */
export function writeTotals(reports: readonly CountedReport[], write: (s: string) => void): void {
  const agree = reports.reduce((a, r) => a + r.agree, 0);
  const compared = reports.reduce((a, r) => a + r.agree + r.disagree, 0);
  const skipped = reports.flatMap((r) => r.rows.filter((x) => x.status === 'skipped'));
  const reasons = new Map<string, number>();
  for (const s of skipped) reasons.set(s.detail ?? '', (reasons.get(s.detail ?? '') ?? 0) + 1);
  write(`\nskipped rows by reason (${skipped.length}):\n`);
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) write(`  ${String(n).padStart(4)}  ${reason}\n`);
  write(`\nTOTAL: ${agree}/${compared} compared rows agree (${pct(agree, compared)}) over ${reports.length} files; ${skipped.length} rows skipped\n`);
}

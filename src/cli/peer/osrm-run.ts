// `npm run peer:osrm -- DIR [--verbose]`: runs every OSRM .feature file under DIR (see osrm-features.ts)
// and prints the agreement per file and in total, every disagreement with its row, and the skipped rows
// grouped by reason (--verbose lists each skipped row too). `npm run peer:osrm -- --guidance TARBALL [--all]`
// runs the guidance files of OSRM's release tarball the same way (osrm-guidance.ts: issue 31's list, or
// every guidance file with --all). Exits 0 whatever the agreement: it is a measurement; the tests pin the
// files expected to pass.
import { relative } from 'node:path';
import { featureFiles, pct, writeTotals } from './feature-files.js';
import { runFeatureFile, type FileReport } from './osrm-features.js';
import { GUIDANCE_FILES, knownCause, runGuidance } from './osrm-guidance.js';

export function printReports(reports: FileReport[], verbose: boolean, write: (s: string) => void): void {
  for (const r of reports) {
    const compared = r.agree + r.disagree;
    write(`${r.file}: ${r.agree}/${compared} agree (${pct(r.agree, compared)}), ${r.skipped} skipped\n`);
    for (const row of r.rows) {
      if (row.status === 'disagree') {
        const cause = knownCause(r.file, row.scenario);
        write(`  DIFFERS  [${row.scenario}] ${row.row}\n           ${row.detail}\n${cause ? `           known difference: ${cause}\n` : ''}`);
      } else if (row.status === 'skipped' && verbose) write(`  skipped  [${row.scenario}] ${row.row}: ${row.detail}\n`);
    }
  }
  // Guidance runs: the rows that differ by their listed cause (osrm-guidance.ts), and those not listed.
  const byCause = new Map<string, number>();
  let unlisted = 0;
  for (const r of reports) {
    for (const row of r.rows.filter((x) => x.status === 'disagree')) {
      const cause = knownCause(r.file, row.scenario);
      if (cause) byCause.set(cause, (byCause.get(cause) ?? 0) + 1);
      else unlisted++;
    }
  }
  if (byCause.size) {
    write(`\nrows that differ by known cause (${[...byCause.values()].reduce((a, b) => a + b, 0)}):\n`);
    for (const [cause, n] of [...byCause].sort((a, b) => b[1] - a[1])) write(`  ${String(n).padStart(4)}  ${cause}\n`);
    write(`  ${String(unlisted).padStart(4)}  not in the known-differences list\n`);
  }
  writeTotals(reports, write);
}

async function main(argv: string[]): Promise<void> {
  const verbose = argv.includes('--verbose');
  const dir = argv.find((a) => !a.startsWith('--'));
  if (!dir) {
    process.stderr.write(
      'usage: npm run peer:osrm -- DIR [--verbose]   (DIR holds OSRM .feature files)\n' +
        '       npm run peer:osrm -- --guidance OSRM_TARBALL [--all] [--verbose]\n',
    );
    process.exit(2);
  }
  const started = Date.now();
  if (argv.includes('--guidance')) {
    printReports(runGuidance(dir, argv.includes('--all') ? undefined : GUIDANCE_FILES), verbose, (s) => process.stdout.write(s));
    process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    return;
  }
  const files = featureFiles(dir);
  const reports: FileReport[] = [];
  for (const [i, f] of files.entries()) {
    process.stderr.write(`[${i + 1}/${files.length}] ${relative(dir, f)}\n`);
    reports.push(runFeatureFile(f, relative(dir, f)));
  }
  printReports(reports, verbose, (s) => process.stdout.write(s));
  process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});

// `npm run peer:nominatim -- DIR [--verbose]`: runs every Nominatim .feature file under DIR — search
// (db/query, nominatim-features.ts) and address model (db/import, nominatim-import.ts) — and prints the agreement per file and in total, every disagreement with its
// row, and the skipped rows grouped by reason (--verbose lists each skipped row too). Exits 0 whatever
// the agreement: it is a measurement.
import { relative } from 'node:path';
import { featureFiles, pct, writeTotals } from './feature-files.js';
import { runNominatimFile, type NominatimFileReport } from './nominatim-features.js';

async function main(argv: string[]): Promise<void> {
  const verbose = argv.includes('--verbose');
  const dir = argv.find((a) => !a.startsWith('--'));
  if (!dir) {
    process.stderr.write('usage: npm run peer:nominatim -- DIR [--verbose]   (DIR holds Nominatim db/query or db/import .feature files)\n');
    process.exit(2);
  }
  const write = (s: string) => process.stdout.write(s);
  const reports: NominatimFileReport[] = [];
  for (const f of featureFiles(dir)) reports.push(await runNominatimFile(f, relative(dir, f)));
  for (const r of reports) {
    const compared = r.agree + r.disagree;
    write(`${r.file}: ${r.agree}/${compared} agree (${pct(r.agree, compared)}), ${r.skipped} skipped\n`);
    for (const row of r.rows) {
      if (row.status === 'disagree') write(`  DIFFERS  [${row.scenario}] ${row.row}\n           ${row.detail}\n`);
      else if (row.status === 'skipped' && verbose) write(`  skipped  [${row.scenario}] ${row.row}: ${row.detail}\n`);
    }
  }
  writeTotals(reports, write);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});

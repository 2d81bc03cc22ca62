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

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { distPath } from '../lib/paths.js';
import { backgroundError } from '../lib/background-errors.js';

/** The bundled web app (npm run build:dashboard writes dist/web/): read once, served from memory. */
export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.woff2': 'font/woff2',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
};

const cache = new Map<string, Asset | null>();

/** An asset by file name (no directories), or undefined. */
export function asset(name: string): Asset | undefined {
  if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) return undefined;
  const type = TYPES[extname(name)];
  if (!type) return undefined;
  let hit = cache.get(name);
  if (hit === undefined) {
    try {
      const body = readFileSync(distPath('web', name));
      hit = { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') backgroundError('dashboard-static-read', err, { name });
      hit = null;
    }
    // A missing file is looked for again (a build may be running); a found one is kept.
    if (hit) cache.set(name, hit);
  }
  return hit ?? undefined;
}

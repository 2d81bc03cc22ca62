import { expect } from 'vitest';
import { api } from '../support/app.js';
import { checkResponse } from '../support/contract.js';

export interface UploadOptions {
  filename?: string;
  fields?: Record<string, string>;
  /** Send no file part at all. */
  noFile?: boolean;
}

/** POST /v1/imports as multipart/form-data, the way a browser or curl -F sends it. */
export async function upload(app: { url: string }, key: string, content: string | Uint8Array, opts: UploadOptions = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(opts.fields ?? {})) form.append(k, v);
  if (!opts.noFile) form.append('file', new Blob([content as string | Uint8Array<ArrayBuffer>], { type: 'text/csv' }), opts.filename ?? 'pois.csv');
  const res = await fetch(`${app.url}/v1/imports`, { method: 'POST', headers: { 'X-API-KEY': key }, body: form });
  const text = await res.text();
  checkResponse('POST', '/v1/imports', res.status, res.headers, text);
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // the test sees the text
  }
  return { status: res.status, body };
}

/** Polls the import until it leaves queued/processing. */
export async function waitForImport(app: { url: string }, key: string, id: string, timeoutMs = 60_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(app, 'GET', `/v1/imports/${id}`, { key });
    expect(res.status).toBe(200);
    const data = res.body.data;
    if (data.status === 'completed' || data.status === 'failed') return data;
    if (Date.now() > until) throw new Error(`import ${id} still ${data.status} after ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Uploads, expects 202, waits for the end. */
export async function importCsv(app: { url: string }, key: string, content: string | Uint8Array, opts: UploadOptions = {}) {
  const res = await upload(app, key, content, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForImport(app, key, res.body.data.id);
}

/** `count` rows `name,latitude,longitude` with distinct names and valid coordinates. */
export function simpleRows(count: number, prefix = 'poi'): string {
  const lines = ['name,latitude,longitude'];
  for (let i = 0; i < count; i++) lines.push(`${prefix} ${i},${(i % 180) - 89.5},${(i % 360) - 179.5}`);
  return `${lines.join('\n')}\n`;
}

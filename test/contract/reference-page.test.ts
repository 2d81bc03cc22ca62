// GET /docs in Debian's chromium (never a downloaded browser): Swagger UI renders the document from this
// server only (no other origin is asked for anything), under the CSP without a violation, and a
// screenshot goes to docs/api-reference.png.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { API_ONLY } from '../api/helpers.js';
import { startTestApp } from '../support/app.js';
import { openBrowser } from '../support/browser.js';
import { contractDocument } from '../support/contract.js';

let app: App & { url: string };
let browser: Browser;
let page: Page;
let requests: string[];
let consoleErrors: string[];

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  ({ browser, page, requests, consoleErrors } = await openBrowser({ width: 1280, height: 900 }));
  page.setDefaultTimeout(15_000);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('renders every operation of the document offline, without a CSP violation', async () => {
  await page.goto(`${app.url}/docs`);
  const doc = contractDocument();
  const count = Object.values(doc.paths as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
  await expect.poll(() => page.locator('.opblock').count(), { timeout: 15_000 }).toBe(count);
  const title = await page.locator('.info .title').first().textContent();
  expect(title).toContain('Waymark API');
  expect(title).toContain('1.0.0');
  // One operation opened, for the screenshot: its parameters and responses come from the document.
  await page.locator('#operations-POIs-listPois .opblock-summary').click();
  await expect.poll(() => page.locator('#operations-POIs-listPois .parameters').textContent()).toContain('category_name');
  await page.screenshot({ path: join(projectRoot, 'docs', 'api-reference.png'), fullPage: false });
  expect(requests.filter((u) => !u.startsWith(app.url) && !u.startsWith('data:'))).toEqual([]);
  expect(consoleErrors).toEqual([]);
}, 60_000);

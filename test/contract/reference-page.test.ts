// GET /docs in Debian's chromium (never a downloaded browser): Swagger UI renders the document from this
// server only (no other origin is asked for anything), under the CSP without a violation, and a
// screenshot goes to docs/api-reference.png.
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/paths.js';
import { API_ONLY } from '../api/helpers.js';
import { startTestApp } from '../support/app.js';
import { contractDocument } from '../support/contract.js';

const CHROMIUM = process.env.WAYMARK_CHROMIUM ?? '/usr/bin/chromium';

let app: App & { url: string };
let browser: Browser;
let page: Page;
const requests: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
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

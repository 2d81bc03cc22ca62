// What walking the dashboard by hand found (issue 33): the phone width (390 px) — no page scrolls
// sideways and the menu does not take a third of the screen —, pasted lists' errors named by the text
// box's line, no 404 for /favicon.ico, and unknown /dashboard/… paths answered 404 with the security
// headers. Debian's chromium against the real server; the screenshots are docs/dashboard-phone-*.png.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { SECURITY_HEADERS } from '../../src/dashboard/security.js';
import { testMapDir } from '../geo-api/support.js';
import { startTestApp } from '../support/app.js';
import { openBrowser } from '../support/browser.js';
import { checkA11y, poll, shot, signInOnPage } from './browser-support.js';
import { makeDashboardTeam, signIn } from './support.js';

let app: App & { url: string };
let browser: Browser;
let page: Page;
let requests: string[] = [];
let team: Awaited<ReturnType<typeof makeDashboardTeam>>;
const failed: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir(), WAYMARK_PROFILES: 'driving-car', WAYMARK_JOBS: 'off' });
  team = await makeDashboardTeam(app, { name: 'Alpenrose Lieferdienst', plan: 'pro' }, 'dispatch@alpenrose.example');
  ({ browser, page, requests } = await openBrowser({ width: 390, height: 844 }, app.url));
  page.on('response', (r) => {
    if (r.status() === 404) failed.push(r.url());
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** How far the page reaches past the viewport's width (0: it does not scroll sideways). */
const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
const menuHeight = () => page.evaluate(() => document.querySelector('header.top')!.getBoundingClientRect().height);

describe('the dashboard at phone width (390 px)', () => {
  it('signs in; the menu is one short band; no page scrolls sideways', async () => {
    await signInOnPage(page, app.url, team.email, team.password, 'API keys');
    for (const [path, heading] of [
      ['keys', 'API keys'],
      ['usage', 'Usage'],
      ['pois', 'POIs'],
      ['data', 'Attributes & categories'],
      ['imports', 'Imports'],
      ['optimize', 'Optimize'],
    ]) {
      await page.goto(`${app.url}/dashboard/${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await overflow(), path).toBeLessThanOrEqual(0);
      expect(await menuHeight(), path).toBeLessThanOrEqual(100);
    }
    // The current page's link is in view in the menu's band.
    const current = await page.locator('header.top a[aria-current="page"]').boundingBox();
    expect(current!.x).toBeGreaterThanOrEqual(0);
    expect(current!.x + current!.width).toBeLessThanOrEqual(390);
  });

  it('the attributes & categories page with long names fits the width', async () => {
    await page.goto(`${app.url}/dashboard/data`);
    await page.getByRole('heading', { level: 1, name: 'Attributes & categories' }).waitFor();
    for (const [name, type] of [
      ['opening_hours_on_public_holidays', 'string'],
      ['wheelchair', 'boolean'],
      ['rating', 'number'],
    ]) {
      await page.getByLabel('New attribute name').fill(name);
      await page.getByLabel('Type').selectOption(type);
      await page.getByRole('button', { name: 'Add attribute' }).click();
      await poll(() => page.getByRole('status').first().textContent()).toBe(`Attribute “${name}” created.`);
    }
    for (const [i, name] of ['Bäckerei und Konditorei am Städtle', 'Depot', 'Apotheke'].entries()) {
      await page.getByLabel('New category name').fill(name);
      await page.getByRole('button', { name: 'Add category' }).click();
      await poll(() => page.locator('#categories-title ~ table tbody tr').count()).toBe(i + 1);
    }
    expect(await overflow()).toBeLessThanOrEqual(0);
    // Every column in view, the last one's buttons included: nothing hides in a table scrolled sideways.
    for (const table of await page.locator('table').all()) {
      expect(await table.evaluate((t) => t.scrollWidth - t.parentElement!.clientWidth)).toBeLessThanOrEqual(0);
    }
    await checkA11y(page, 'data at 390 px');
    await page.screenshot({ path: shot('phone-data'), fullPage: true });
    await page.goto(`${app.url}/dashboard/keys`);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.screenshot({ path: shot('phone-keys') });
  });

  it("names a pasted list's bad lines as the text box numbers them, from 1", async () => {
    await page.goto(`${app.url}/dashboard/optimize`);
    await page.getByRole('heading', { level: 1, name: 'Optimize' }).waitFor();
    // A header line, a blank line, then stops: the bad latitude is the text's 7th line (the 5th stop).
    const text = ['latitude,longitude,id', '', '47.1393,9.5215,a', '47.165,9.5093,b', '47.16,9.51,c', '47.15,9.52,d', '147.2,9.53,e'].join('\n');
    await page.getByLabel('Stops, one a line: latitude,longitude[,id[,window start,window end]]').fill(text);
    await page.getByLabel('Start latitude').first().fill('47.14');
    await page.getByLabel('Start longitude').first().fill('9.52');
    await page.getByRole('button', { name: 'Optimize', exact: true }).click();
    await poll(() => page.locator('.list-errors').textContent()).toMatch(/^line 7: latitude /);
    expect(await page.locator('.list-errors').textContent()).not.toContain('stops.');
    expect(await page.getByRole('alert').textContent()).toBe('Some lines of the list are not valid: see under the list.');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: shot('phone-list-errors'), fullPage: true });
  });

  it('asked for nothing that was not there: no 404 (the favicon included, when the browser asks)', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(failed).toEqual([]);
  });
});

describe('answers around the pages', () => {
  it('/favicon.ico is an icon', async () => {
    const res = await fetch(`${app.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]);
  });

  it('an unknown /dashboard/… path is 404 with the security headers, for any method', async () => {
    const s = await signIn(app.url, team.email, team.password);
    for (const [method, path] of [
      ['GET', '/dashboard/nowhere'],
      ['GET', '/dashboard/keys/extra/deep'],
      ['GET', '/dashboard/api/nothing'],
      ['POST', '/dashboard/api/nothing'],
      ['GET', '/dashboard/assets/missing.js'],
    ]) {
      const res = await fetch(`${app.url}${path}`, { method, headers: { cookie: s.cookie } });
      expect(res.status, `${method} ${path}`).toBe(404);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), `${path} ${name}`).toBe(value);
    }
  });
});

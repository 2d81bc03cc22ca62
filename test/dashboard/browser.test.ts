import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testMapDir } from '../geo-api/support.js';
import { api, startTestApp } from '../support/app.js';
import { checkA11y as checkPage, openBrowser, poll, shot } from './browser-support.js';
import { makeDashboardTeam } from './support.js';

/**
 * The dashboard in Debian's chromium (never a downloaded browser) against the real server and
 * PostgreSQL: sign-in, keys used on the API at once, usage, POIs, attributes and categories, imports,
 * an axe-core check of every page, and the screenshots in docs/.
 */
let app: App & { url: string };
let browser: Browser;
let page: Page;
let team: Awaited<ReturnType<typeof makeDashboardTeam>>;
let requests: string[] = [];
let consoleErrors: string[] = [];

beforeAll(async () => {
  // Liechtenstein's map, so the POIs get the addresses reverse geocoding gives them (one profile is enough).
  app = await startTestApp({ WAYMARK_MAP: await testMapDir(), WAYMARK_PROFILES: 'driving-car', WAYMARK_JOB_LEASE_MS: '5000' });
  // A fixed e-mail (each test run has its own database) keeps the screenshots stable.
  team = await makeDashboardTeam(app, { name: 'Acme Logistics', plan: 'pro' }, 'ops@acme.example');
  ({ browser, page, requests, consoleErrors } = await openBrowser(app.url));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const checkA11y = (name: string) => checkPage(page, name);

/** Each test starts from its page loaded afresh, so one failure does not leave the next on a stale screen. */
const go = async (label: string, path: string) => {
  await page.goto(`${app.url}/dashboard/${path}`);
  await poll(() => page.locator('h1').textContent()).toBe(label);
};

describe('dashboard in a browser', () => {
  it('refuses a wrong password, signs in, and passes the accessibility check', async () => {
    await page.goto(`${app.url}/dashboard/`);
    await poll(() => page.locator('h1').textContent()).toBe('Sign in to Waymark');
    await checkA11y('sign-in');
    await page.getByLabel('E-mail').fill(team.email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toBe('The e-mail or the password is wrong.');
    await page.getByLabel('E-mail').fill('demo@waymark.local');
    await page.screenshot({ path: shot('sign-in') });
    await page.getByLabel('E-mail').fill(team.email);
    await page.getByLabel('Password').fill(team.password);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('h1').textContent()).toBe('API keys');
    expect(new URL(page.url()).pathname).toBe('/dashboard/keys');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'wm_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
  });

  it('creates a key that works on the API at once; deactivates, reactivates and deletes it', async () => {
    await go('API keys', 'keys');
    await page.getByLabel('Name', { exact: true }).fill('Warehouse <script>alert(1)</script>');
    await page.getByRole('checkbox', { name: 'All permissions' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyBox = page.getByLabel('New API key');
    await poll(() => keyBox.inputValue()).toMatch(/^wm_[A-Za-z0-9]{40}$/);
    const key = await keyBox.inputValue();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    // The name is shown as text, not run or parsed.
    await poll(() => page.locator('tbody tr').first().locator('td').first().textContent()).toBe('Warehouse <script>alert(1)</script>');
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);

    // A second key with a few permissions and an expiry, for the screenshot.
    await page.getByLabel('Name', { exact: true }).fill('Reporting (read only)');
    await page.getByRole('checkbox', { name: 'All permissions' }).uncheck();
    await page.getByRole('checkbox', { name: 'read-pois' }).check();
    await page.getByRole('checkbox', { name: 'read-categories' }).check();
    await page.getByLabel('Expires (optional)').fill('2030-06-30T12:00');
    await page.getByRole('button', { name: 'Create key' }).click();
    await poll(() => page.locator('tbody tr').count()).toBe(2);
    await checkA11y('keys');
    await page.screenshot({ path: shot('keys'), fullPage: true });
    await page.getByRole('button', { name: 'I have stored the key' }).click();

    await page.getByRole('button', { name: 'Deactivate key Warehouse <script>alert(1)</script>' }).click();
    const dialog = page.getByRole('dialog');
    await checkA11y('keys-confirm');
    await dialog.getByRole('button', { name: 'Deactivate key' }).click();
    await poll(() => page.getByRole('status').first().textContent()).toMatch(/deactivated/);
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(401);

    await page.getByRole('button', { name: 'Reactivate key Warehouse <script>alert(1)</script>' }).click();
    await poll(async () => (await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);

    // Cancel keeps the key; confirming deletes it.
    await page.getByRole('button', { name: 'Delete key Warehouse <script>alert(1)</script>' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);
    await page.getByRole('button', { name: 'Delete key Warehouse <script>alert(1)</script>' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    await poll(() => page.locator('tbody tr').count()).toBe(1);
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(401);
  });

  it('manages attributes and categories with the API messages', async () => {
    await go('Attributes & categories', 'data');
    await page.getByLabel('New attribute name').fill('opening hours');
    await page.getByRole('button', { name: 'Add attribute' }).click();
    await poll(() => page.locator('#attributes-new-name-error').textContent()).toBe('may contain only letters, numbers and underscores');
    for (const [name, type] of [
      ['rating', 'number'],
      ['wheelchair', 'boolean'],
      ['phone', 'string'],
    ]) {
      await page.getByLabel('New attribute name').fill(name);
      await page.getByLabel('Type').selectOption(type);
      await page.getByRole('button', { name: 'Add attribute' }).click();
      await poll(() => page.getByRole('status').first().textContent()).toBe(`Attribute “${name}” created.`);
    }
    for (const [i, name] of ['Cafe', 'Depot', 'Pharmacy'].entries()) {
      await page.getByLabel('New category name').fill(name);
      await page.getByRole('button', { name: 'Add category' }).click();
      await poll(() => page.locator('#categories-title ~ table tbody tr').count()).toBe(i + 1);
    }
    await poll(() => page.locator('#categories-title ~ table tbody tr').count()).toBe(3);
    await page.getByRole('button', { name: 'Rename Pharmacy' }).click();
    await page.getByLabel('New name for Pharmacy').fill('Chemist');
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => page.locator('#categories-title ~ table').textContent()).toContain('Chemist');
    await checkA11y('data');
    await page.screenshot({ path: shot('attributes-categories'), fullPage: true });
  });

  it('creates, edits, filters and deletes POIs with the API validation messages', async () => {
    await go('POIs', 'pois');
    await page.getByRole('button', { name: 'New POI' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Central Depot');
    await page.getByLabel('Latitude').fill('95');
    await page.getByLabel('Longitude').fill('9.52');
    await page.getByLabel('rating (number)').fill('lots');
    await page.getByRole('button', { name: 'Create POI' }).click();
    await poll(() => page.locator('#poi-latitude-error').textContent()).toBe('must be between -90 and 90');
    await checkA11y('pois-form-errors');
    await page.getByLabel('Latitude').fill('47.141');
    await page.getByRole('button', { name: 'Create POI' }).click();
    await poll(() => page.locator('[id^="poi-attr-"][id$="-error"]').first().textContent()).toMatch(/number/);
    await page.getByLabel('rating (number)').fill('4.5');
    await page.locator('#poi-category').selectOption({ label: 'Depot' });
    await page.getByLabel('wheelchair (boolean)').selectOption('true');
    await page.getByRole('button', { name: 'Create POI' }).click();
    await poll(() => page.getByRole('status').first().textContent()).toBe('POI “Central Depot” created.');

    const rows: Array<[string, number, number, string, string]> = [
      ['Café Vaduz', 47.1396, 9.5219, 'Cafe', '4.8'],
      ['Schaan Chemist', 47.1653, 9.5097, 'Chemist', '3.9'],
      ['Triesen Depot', 47.107, 9.5262, 'Depot', '4.1'],
      ['Balzers Café', 47.0667, 9.5025, 'Cafe', '4.6'],
    ];
    for (const [name, lat, lon, cat, rating] of rows) {
      await page.getByRole('button', { name: 'New POI' }).click();
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Latitude').fill(String(lat));
      await page.getByLabel('Longitude').fill(String(lon));
      await page.locator('#poi-category').selectOption({ label: cat });
      await page.getByLabel('rating (number)').fill(rating);
      await page.getByRole('button', { name: 'Create POI' }).click();
      await poll(() => page.getByRole('status').first().textContent()).toBe(`POI “${name}” created.`);
    }
    await poll(() => page.locator('tbody tr').count()).toBe(5);

    await page.getByRole('button', { name: 'Edit Central Depot' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Central Depot North');
    await page.getByLabel('phone (string)').fill('+423 000 00 00');
    await page.getByRole('button', { name: 'Save POI' }).click();
    await poll(() => page.getByRole('status').first().textContent()).toBe('POI “Central Depot North” saved.');
    await poll(() => page.locator('tbody').textContent()).toContain('phone: +423 000 00 00');
    // Geocoding runs as a job: the table shows the addresses once it has filled them in.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Apply filters' }).click();
          return page.locator('tbody tr:has-text("Café Vaduz") td').nth(5).textContent();
        },
        { timeout: 30_000, interval: 300 },
      )
      .toMatch(/Vaduz/);
    await checkA11y('pois');
    await page.screenshot({ path: shot('pois'), fullPage: true });

    // Text search on name: case-insensitive, a wildcard character is taken literally.
    await page.getByLabel('Name contains').fill('dEpOt');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.locator('tbody tr td:first-child').allTextContents()).toEqual(['Central Depot North', 'Triesen Depot']);
    await page.getByLabel('Name contains').fill('%');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.getByText('No POIs match.').count()).toBe(1);
    await page.getByLabel('Name contains').fill('');
    await page.locator('#filter-category').selectOption({ label: 'Cafe' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.locator('tbody tr').count()).toBe(2);
    await page.locator('#filter-category').selectOption({ label: 'Any category' });
    await page.getByLabel('Attribute', { exact: true }).selectOption('rating');
    await page.getByLabel('Attribute value').fill('4.50');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Attribute value').fill('high');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.getByRole('alert').textContent()).toMatch(/attributes\.rating/);
    await page.getByLabel('Attribute', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.locator('tbody tr').count()).toBe(5);

    await page.getByRole('button', { name: 'Delete Triesen Depot' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete POI' }).click();
    await poll(() => page.locator('tbody tr').count()).toBe(4);
    const [{ n }] = await app.sql`SELECT count(*)::int AS n FROM pois WHERE team_id = ${team.teamId}`;
    expect(n).toBe(4);
  });

  it('uploads a CSV, shows its progress, result and row errors, and lists past imports', async () => {
    await go('Imports', 'imports');
    const csv = [
      'name,latitude,longitude,category,rating',
      'Vaduz Castle,47.1394,9.5244,Sights,5',
      'Bad latitude,123,9.5,Sights,4',
      'Red House,47.1378,9.5190,Sights,not-a-number',
      'Malbun Lift,47.1023,9.6089,Sports,4.2',
      '',
    ].join('\n');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'liechtenstein.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.locator('.import-status').textContent(), { timeout: 30_000, interval: 100 }).toMatch(/Status: completed/);
    expect(await page.locator('.import-status').textContent()).toContain('2 created · 2 failed');
    const errors = await page.locator('.errors-table tbody tr').allTextContents();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^3latitude: must be between -90 and 90/);
    expect(errors[1]).toMatch(/^4rating/);
    await poll(() => page.locator('#past-title ~ .table-wrap tbody tr').count()).toBe(1);
    await checkA11y('imports');
    await page.screenshot({ path: shot('imports'), fullPage: true });

    // A file the API refuses at once: its message is shown.
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('title,lat\nx,1\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await poll(() => page.locator('#import-file-error').textContent()).toMatch(/name|latitude/);
  });

  it('charts the requests just made on the usage page', async () => {
    const [{ key }] = [
      await (
        await fetch(`${app.url}/dashboard/api/keys`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
            'x-csrf-token': await page.evaluate(async () => (await (await fetch('/dashboard/api/session')).json()).data.csrf_token),
          },
          body: JSON.stringify({ name: 'Usage probe', permissions: ['all'] }),
        })
      )
        .json()
        .then((r: any) => r.data),
    ];
    for (let i = 0; i < 7; i++) expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);
    for (let i = 0; i < 3; i++) await api(app, 'GET', '/v1/categories', { key });
    for (let i = 0; i < 2; i++) expect((await api(app, 'GET', '/v1/pois/not-a-poi', { key })).status).toBe(404);
    await go('Usage', 'usage');
    // The team's: these 12 and the 3 of the key deleted by the keys test (usage outlives its key).
    await poll(() => page.locator('.filters .total').textContent()).toBe('15 requests');
    await poll(() => page.locator('table:has(caption)').last().textContent()).toContain('deleted key3');
    await poll(() => page.locator('.chart canvas').count()).toBe(1);
    const legend = await page.locator('.u-legend').textContent();
    expect(legend).toContain('GET /v1/pois');
    expect(await page.locator('table:has(caption)').first().textContent()).toContain('GET /v1/categories3');
    await page.getByLabel('API key').selectOption({ label: `Usage probe (…${key.slice(-4)})` });
    await poll(() => page.locator('.filters .total').textContent()).toBe('12 requests');
    await page.getByLabel('Period').selectOption('30d');
    await poll(() => page.locator('.filters .total').textContent()).toBe('12 requests');
    await page.getByLabel('Lines by').selectOption('status');
    await poll(() => page.locator('.u-legend').textContent()).toContain('4xx');
    expect(await page.locator('table:has(caption)').nth(1).textContent()).toContain('2xx104xx2');
    await page.getByLabel('Period').selectOption('24h');
    await page.getByLabel('API key').selectOption('');
    await poll(() => page.locator('.stat').nth(1).textContent()).toMatch(/left/);
    await checkA11y('usage');
    await page.screenshot({ path: shot('usage'), fullPage: true });
  });

  it('works from the keyboard and signs out; nothing left the machine', async () => {
    await page.goto(`${app.url}/dashboard/keys`);
    await poll(() => page.locator('h1').textContent()).toBe('API keys');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('API keys');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('h1').textContent()).toBe('Usage');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Sign in to Waymark');
    const status = await page.evaluate(async () => (await fetch('/dashboard/api/session')).status);
    expect(status).toBe(401);
    await page.goto(`${app.url}/dashboard/pois`);
    await poll(() => page.locator('h1').textContent()).toBe('Sign in to Waymark');

    const foreign = requests.filter((u) => !u.startsWith(app.url) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(foreign).toEqual([]);
    expect(consoleErrors.filter((e) => !/status of (401|403|404|422)/.test(e))).toEqual([]);
  });
});

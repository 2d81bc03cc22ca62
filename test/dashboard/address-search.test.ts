import type { Browser, Page } from 'playwright-core';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { loadOsm } from '../../src/map/osm/osm-data.js';
import { testMapDir } from '../geo-api/support.js';
import { haversine } from '../support/geo.js';
import { startTestApp } from '../support/app.js';
import { checkA11y, openBrowser, poll, shot, signInOnPage } from './browser-support.js';
import { makeDashboardTeam } from './support.js';

/**
 * The POI editor's address field in Debian's chromium against the real server, PostgreSQL and the
 * Liechtenstein map: typing offers the map's autocomplete, arrow keys and Enter pick a suggestion,
 * which sets the POI's latitude and longitude; the POI is created there and gets that address. The
 * expected place is the Post Vaduz node's own position and tags, read from the extract.
 */
let app: App & { url: string };
let browser: Browser;
let page: Page;
let consoleErrors: string[] = [];
const POST_VADUZ = 326058701;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir(), WAYMARK_PROFILES: 'driving-car', WAYMARK_JOB_LEASE_MS: '5000' });
  const team = await makeDashboardTeam(app, { name: 'Acme Logistics', plan: 'pro' }, 'address@acme.example');
  ({ browser, page, consoleErrors } = await openBrowser(app.url));
  await signInOnPage(page, app.url, team.email, team.password, 'API keys');
  // The sign-in page's own session probe (401) is not this page's doing.
  consoleErrors.length = 0;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('POI editor: address field', () => {
  it('places a new POI by picking "Städtle 38" from the suggestions, and the POI gets that address', async () => {
    const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf'));
    const node = osm.taggedNodes.find((n) => n.id === POST_VADUZ)!;
    const t = node.tags!;
    const expected = `${t['addr:street']} ${t['addr:housenumber']}, ${t['addr:postcode']} ${t['addr:city']}, Liechtenstein`;

    await page.goto(`${app.url}/dashboard/pois`);
    await poll(() => page.locator('h1').textContent()).toBe('POIs');
    await page.getByRole('button', { name: 'New POI' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Post office');
    const field = page.getByRole('combobox', { name: 'Address' });
    await field.pressSequentially('stadtle 38', { delay: 30 });
    const options = page.getByRole('listbox', { name: 'Address suggestions' }).getByRole('option');
    await poll(() => options.count()).toBeGreaterThan(0);
    await poll(() => options.allTextContents()).toContainEqual(expect.stringContaining(expected));
    await poll(() => field.getAttribute('aria-expanded')).toBe('true');
    await checkA11y(page, 'poi address suggestions');
    await page.screenshot({ path: shot('poi-address'), fullPage: true });

    // Down to the suggestion, Enter: picked, not the form submitted.
    const texts = await options.allTextContents();
    const at = texts.findIndex((x) => x.includes(expected));
    for (let i = 0; i <= at; i++) await field.press('ArrowDown');
    await poll(() => page.locator('[role="option"][aria-selected="true"]').textContent()).toContain(expected);
    await field.press('Enter');
    await poll(() => page.getByRole('status').textContent()).toBe(`Placed at ${expected}`);
    const lat = Number(await page.getByLabel('Latitude').inputValue());
    const lon = Number(await page.getByLabel('Longitude').inputValue());
    expect(haversine({ latitude: lat, longitude: lon }, { latitude: node.lat, longitude: node.lon })).toBeLessThan(60);
    expect(await options.count()).toBe(0);

    await page.getByRole('button', { name: 'Create POI' }).click();
    await poll(() => page.locator('tbody tr', { hasText: 'Post office' }).count()).toBe(1);
    // Once the background geocoder has been by, the table shows the address it gives the placed point: the node's own.
    await poll(async () => {
      await page.reload();
      await page.locator('h1', { hasText: 'POIs' }).waitFor();
      return page.locator('tbody tr', { hasText: 'Post office' }).textContent();
    }, 20_000).toContain(expected);
    expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
  });

  it('says so when nothing matches', async () => {
    await page.goto(`${app.url}/dashboard/pois`);
    await page.getByRole('button', { name: 'New POI' }).click();
    await page.getByRole('combobox', { name: 'Address' }).fill('qxqzvkw');
    await poll(() => page.getByRole('status').textContent()).toBe('No address found');
  });
});

import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { App } from '../../src/app.js';
import { testMapDir } from '../geo-api/support.js';
import { api, startTestApp } from '../support/app.js';
import { canvasStats, checkA11y, openBrowser, poll, shot, signInOnPage, waitForBaseMap } from './browser-support.js';
import { makeDashboardTeam } from './support.js';

/**
 * The reachability pages in Debian's chromium against the real server, PostgreSQL and the bundled
 * Liechtenstein map: the Isochrones page (bands drawn on the base map, a legend with each value and its
 * area, the API's field errors at their fields) and the POI map's POIs by drive time, with screenshots.
 */
let app: App & { url: string };
let browser: Browser;
let page: Page;
let requests: string[] = [];
let consoleErrors: string[] = [];
let key: string;

const VADUZ = { latitude: 47.1393, longitude: 9.5215 };
const GROUPS = [
  { name: 'Vaduz', lat: 47.1395, lon: 9.5215 },
  { name: 'Schaan', lat: 47.166, lon: 9.51 },
  { name: 'Triesen', lat: 47.107, lon: 9.528 },
  { name: 'Balzers', lat: 47.0665, lon: 9.502 },
  // Farther than 10 minutes' drive from Vaduz: up the mountain road, and the far north.
  { name: 'Malbun', lat: 47.1018, lon: 9.6094 },
  { name: 'Ruggell', lat: 47.2437, lon: 9.5265 },
];

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir(), WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'driving-car,driving-hgv' });
  const team = await makeDashboardTeam(app, { name: 'Acme Logistics', plan: 'pro' }, 'reach@acme.example');
  key = (await createKey(app.sql, { teamId: team.teamId, name: 'scripts', permissions: parsePermissionList('all') })).key;
  for (const g of GROUPS) {
    for (let i = 0; i < 2; i++) {
      const res = await api(app, 'POST', '/v1/pois', {
        key,
        body: { name: `${g.name} depot ${i + 1}`, latitude: g.lat + i * 0.0015, longitude: g.lon + (i % 2) * 0.002 },
      });
      expect(res.status).toBe(201);
    }
  }
  ({ browser, page, requests, consoleErrors } = await openBrowser(app.url));
  await signInOnPage(page, app.url, team.email, team.password, 'API keys');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const pixelsOf = async (hex: string) => (await canvasStats(page, Number.parseInt(hex.slice(1), 16))).matching;

/** The features of one of the map's GeoJSON sources (the page keeps its map on the map's box). */
const sourceFeatures = (id: string) =>
  page.evaluate(async (id) => {
    const map = (document.querySelector('.map') as any).maplibre;
    const source = map?.getSource(id);
    if (!source) return [];
    const data = await source.getData();
    return (data.features as Array<{ properties: Record<string, unknown>; geometry: { type: string } }>).map((f) => ({
      properties: f.properties,
      type: f.geometry.type,
    }));
  }, id);

async function openMap(path: string, heading: string, view: { zoom: number; lat: number; lon: number }) {
  await page.goto('about:blank');
  await page.goto(`${app.url}/dashboard/${path}#${view.zoom}/${view.lat}/${view.lon}`);
  await poll(() => page.locator('h1').textContent()).toBe(heading);
  await waitForBaseMap(page);
}

const usageTotal = async () =>
  page.evaluate(async () => {
    const r = await fetch('/dashboard/api/usage?range=24h');
    return ((await r.json()).data.total as number[]).reduce((a, b) => a + b, 0);
  });

const isochroneReply = () => page.waitForResponse((r: Response) => r.url().endsWith('/dashboard/api/v1/isochrones') && r.request().method() === 'POST');

/** Software WebGL on a shared machine: a map page takes seconds to draw. */
const SLOW = 150_000;
const VIEW = { zoom: 11, lat: 47.14, lon: 9.53 };

describe('reachability pages in a browser', () => {
  it(
    'draws a 10-minute car isochrone from Vaduz with its area, through the session and without counting it as usage',
    async () => {
      await openMap('isochrones', 'Isochrones', VIEW);
      const before = await usageTotal();
      await page.getByLabel('Latitude').fill(String(VADUZ.latitude));
      await page.getByLabel('Longitude').fill(String(VADUZ.longitude));
      await page.getByLabel('Profile').selectOption('driving-car');
      await page.getByLabel(/^Ranges \(minutes/).fill('10');
      const reply = isochroneReply();
      await page.getByRole('button', { name: 'Show isochrones' }).click();
      const res = await reply;
      expect(res.status(), await res.text()).toBe(200);
      expect(res.request().postDataJSON()).toEqual({ profile: 'driving-car', locations: [VADUZ], range_type: 'time', range: [600] });
      const answer = (await res.json()).data;
      expect(answer.type).toBe('FeatureCollection');
      expect(answer.features).toHaveLength(1);
      const area: number = answer.features[0].properties.area;
      expect(area).toBeGreaterThan(1e6);

      // The legend: one row, its value and its area in km² as the API gave it.
      await poll(() => page.locator('table.legend tbody tr').count()).toBe(1);
      const row = await page.locator('table.legend tbody tr td').allTextContents();
      expect(row.slice(1)).toEqual(['10 min', `${(area / 1e6).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} km²`]);
      // The map's source holds the band, and it is drawn (its outline in the first band colour).
      await poll(async () => (await sourceFeatures('isochrones')).length).toBe(1);
      expect((await sourceFeatures('isochrones'))[0].type).toMatch(/^(Multi)?Polygon$/);
      await poll(() => pixelsOf('#1a9850')).toBeGreaterThan(100);

      // One of the team's POIs as the centre: sent as its id, named in the legend's title.
      await page.getByLabel('Or a POI').selectOption({ label: 'Schaan depot 1' });
      expect(await page.getByLabel('Latitude').inputValue()).toBe('47.16600');
      const byPoi = isochroneReply();
      await page.getByRole('button', { name: 'Show isochrones' }).click();
      const poiRes = await byPoi;
      expect(poiRes.status(), await poiRes.text()).toBe(200);
      const sent = poiRes.request().postDataJSON().locations;
      expect(sent).toHaveLength(1);
      expect(Object.keys(sent[0])).toEqual(['poi_id']);
      expect((await poiRes.json()).data.features[0].properties.poi_id).toBe(sent[0].poi_id);
      await poll(() => page.locator('#iso-title').textContent()).toBe('1 band from Schaan depot 1');
      expect(await usageTotal()).toBe(before);
    },
    SLOW,
  );

  it(
    'draws 5, 10 and 15 minutes as three bands, largest first, areas growing; a bad range is named at its field',
    async () => {
      await openMap('isochrones', 'Isochrones', VIEW);
      await page.getByLabel('Latitude').fill(String(VADUZ.latitude));
      await page.getByLabel('Longitude').fill(String(VADUZ.longitude));
      await page.getByLabel(/^Ranges \(minutes/).fill('5, 10, 90');
      let reply = isochroneReply();
      await page.getByRole('button', { name: 'Show isochrones' }).click();
      expect((await reply).status()).toBe(422);
      await poll(() => page.locator('#iso-ranges-error').textContent()).toMatch(/^90: /);
      expect(await page.getByLabel(/^Ranges \(minutes/).getAttribute('aria-invalid')).toBe('true');
      await checkA11y(page, 'isochrones (field error)');

      await page.getByLabel(/^Ranges \(minutes/).fill('5, 10, 15');
      reply = isochroneReply();
      await page.getByRole('button', { name: 'Show isochrones' }).click();
      const res = await reply;
      expect(res.status(), await res.text()).toBe(200);
      expect(res.request().postDataJSON().range).toEqual([300, 600, 900]);
      await poll(() => page.locator('table.legend tbody tr').count()).toBe(3);
      const rows = await page
        .locator('table.legend tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
      expect(rows.map((r) => r[1])).toEqual(['5 min', '10 min', '15 min']);
      const areas = rows.map((r) => Number(r[2].match(/^([\d,]+\.\d\d) km²$/)![1].replace(/,/g, '')));
      expect(areas[0]).toBeLessThan(areas[1]);
      expect(areas[1]).toBeLessThan(areas[2]);
      // Largest first in the source (drawn under the smaller ones), fainter the larger it is.
      const features = await sourceFeatures('isochrones');
      expect(features.map((f) => f.properties.value)).toEqual([900, 600, 300]);
      const opacity = features.map((f) => f.properties.opacity as number);
      expect(opacity[0]).toBeLessThan(opacity[1]);
      expect(opacity[1]).toBeLessThan(opacity[2]);
      for (const colour of ['#1a9850', '#fdae61', '#67001f']) await poll(() => pixelsOf(colour)).toBeGreaterThan(50);
      await checkA11y(page, 'isochrones');
      await page.screenshot({ path: shot('isochrones'), fullPage: true });
    },
    SLOW,
  );

  it(
    "lists and draws the team's POIs reachable within 10 minutes' drive, nearest by time first",
    async () => {
      await openMap('map', 'POI map', VIEW);
      await poll(() => page.locator('.map-status').textContent()).toMatch(/^12 POIs on the map/);
      await page.getByRole('radio', { name: 'POIs by drive time' }).check();
      await page.getByLabel('Start latitude').fill(String(VADUZ.latitude));
      await page.getByLabel('Start longitude').fill(String(VADUZ.longitude));
      await page.getByLabel('Max travel time (minutes)').fill('10');
      const reply = page.waitForResponse((r: Response) => r.url().includes('/dashboard/api/v1/pois?') && r.url().includes('max_travel_time='));
      await page.getByRole('button', { name: 'Find reachable POIs' }).click();
      const res = await reply;
      expect(res.status(), await res.text()).toBe(200);
      const query = new URL(res.url()).searchParams;
      expect(Object.fromEntries(query)).toMatchObject({ latitude: '47.1393', longitude: '9.5215', profile: 'driving-car', max_travel_time: '600' });

      // The same list with a key: the page shows it in the API's order.
      const direct = await api(app, 'GET', `/v1/pois?latitude=47.1393&longitude=9.5215&profile=driving-car&max_travel_time=600&limit=100`, { key });
      expect(direct.status).toBe(200);
      const expected: Array<{ name: string; travel_time: number; travel_distance: number }> = direct.body.data;
      const times = JSON.stringify(expected.map((p) => [p.name, p.travel_time]));
      expect(expected.length, times).toBeGreaterThanOrEqual(2);
      expect(expected.length, times).toBeLessThan(12);
      expect(
        expected.map((p) => p.name).filter((n) => /Malbun|Ruggell/.test(n)),
        times,
      ).toEqual([]);
      await poll(() => page.locator('table.reachable tbody tr').count()).toBe(expected.length);
      const rows = await page
        .locator('table.reachable tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(rows.map((r) => r[1])).toEqual(expected.map((p) => p.name));
      expect(rows[0][1]).toMatch(/^Vaduz depot/);
      const minutes = rows.map((r) => Number(r[2].replace(' min', '')));
      expect(minutes).toEqual([...minutes].sort((a, b) => a - b));
      expect(minutes.at(-1)).toBeLessThanOrEqual(10);
      expect(rows.map((r) => r[3])).toEqual(expected.map((p) => `${(p.travel_distance / 1000).toFixed(2)} km`));
      await poll(() => page.locator('.map-status').textContent()).toMatch(new RegExp(`^${expected.length} POIs reachable within 10 min`));
      await poll(async () => (await sourceFeatures('reachable')).length).toBe(expected.length);
      await poll(() => pixelsOf('#7c3aed')).toBeGreaterThan(100);
      await checkA11y(page, 'map (by drive time)');
      await page.screenshot({ path: shot('map-drive-time'), fullPage: true });
    },
    SLOW,
  );

  it('asked no host but the server for anything', () => {
    const foreign = requests.filter((u) => !u.startsWith(app.url) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(foreign).toEqual([]);
    expect(consoleErrors.filter((e) => !/status of (401|403|404|422)/.test(e))).toEqual([]);
  });
});

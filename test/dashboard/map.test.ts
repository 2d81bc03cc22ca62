import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { App } from '../../src/app.js';
import { testMapDir } from '../geo-api/support.js';
import { api, makeTeam, startTestApp } from '../support/app.js';
import { canvasStats, checkA11y, openBrowser, poll, shot, signInOnPage, waitForBaseMap } from './browser-support.js';
import { makeDashboardTeam } from './support.js';

/**
 * The dashboard's map pages in Debian's chromium against the real server, PostgreSQL and the bundled
 * Liechtenstein map: the base map drawn from the server's own tiles, POIs on the map, routing by
 * clicking (also around a POI picked to avoid, and not counted as API usage), clusters, optimization,
 * no request to any other host, and the screenshots in docs/.
 */
let app: App & { url: string };
let browser: Browser;
let page: Page;
let requests: string[] = [];
let consoleErrors: string[] = [];
let key: string;
let team: Awaited<ReturnType<typeof makeDashboardTeam>>;

const A = { latitude: 47.13929, longitude: 9.5228 }; // Vaduz, Städtle
const B = { latitude: 47.16761, longitude: 9.5084 }; // Schaan, Postplatz
const GROUPS = [
  { name: 'Vaduz', lat: 47.1395, lon: 9.5215 },
  { name: 'Schaan', lat: 47.166, lon: 9.51 },
  { name: 'Balzers', lat: 47.0665, lon: 9.502 },
];

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir(), WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'driving-car,driving-hgv' });
  team = await makeDashboardTeam(app, { name: 'Acme Logistics', plan: 'pro' }, 'dispatch@acme.example');
  key = (await createKey(app.sql, { teamId: team.teamId, name: 'scripts', permissions: parsePermissionList('all') })).key;
  for (const g of GROUPS) {
    for (let i = 0; i < 3; i++) {
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

const pixelsOf = async (hex: string) => (await canvasStats(page, parseInt(hex.slice(1), 16))).matching;

/** Opens a map page at a view (#zoom/lat/lon) and waits until the base map is drawn. */
async function openMap(path: string, heading: string, view: { zoom: number; lat: number; lon: number }) {
  // A load afresh: going to the same page with another #view would only move the map.
  await page.goto('about:blank');
  await page.goto(`${app.url}/dashboard/${path}#${view.zoom}/${view.lat}/${view.lon}`);
  await poll(() => page.locator('h1').textContent()).toBe(heading);
  await waitForBaseMap(page);
}

/** Where a point is on the map's canvas (CSS pixels from its corner) at the view it was opened with. */
async function pixelOf(view: { zoom: number; lat: number; lon: number }, lat: number, lon: number) {
  const box = (await page.locator('.map canvas').boundingBox())!;
  const world = 512 * 2 ** view.zoom;
  const mx = (l: number) => ((l + 180) / 360) * world;
  const my = (p: number) => ((1 - Math.log(Math.tan(Math.PI / 4 + (p * Math.PI) / 360)) / Math.PI) / 2) * world;
  return { x: box.width / 2 + mx(lon) - mx(view.lon), y: box.height / 2 + my(lat) - my(view.lat) };
}
const clickAt = async (view: { zoom: number; lat: number; lon: number }, lat: number, lon: number) =>
  page.locator('.map canvas').click({ position: await pixelOf(view, lat, lon) });

/** The team's request count over the last 24 hours, as the usage page reads it. */
const usageTotal = async () =>
  page.evaluate(async () => {
    const r = await fetch('/dashboard/api/usage?range=24h');
    return ((await r.json()).data.total as number[]).reduce((a, b) => a + b, 0);
  });

/** Meters from a point to the nearest segment of a [lon, lat] line (flat over a few km). */
function distanceToLine(p: { latitude: number; longitude: number }, line: number[][]): number {
  const k = 111_320,
    kx = k * Math.cos((p.latitude * Math.PI) / 180);
  let best = Infinity;
  for (let i = 1; i < line.length; i++) {
    const [ax, ay] = [(line[i - 1][0] - p.longitude) * kx, (line[i - 1][1] - p.latitude) * k];
    const [bx, by] = [(line[i][0] - p.longitude) * kx, (line[i][1] - p.latitude) * k];
    const len = (bx - ax) ** 2 + (by - ay) ** 2;
    const t = len ? Math.max(0, Math.min(1, -(ax * (bx - ax) + ay * (by - ay)) / len)) : 0;
    best = Math.min(best, Math.hypot(ax + t * (bx - ax), ay + t * (by - ay)));
  }
  return best;
}

/** Software WebGL on a shared machine: a map page takes seconds to draw. */
const SLOW = 150_000;
const ROUTE_VIEW = { zoom: 13, lat: 47.1535, lon: 9.5156 };
const routeReply = () => page.waitForResponse((r: Response) => r.url().endsWith('/dashboard/api/v1/routes') && r.request().method() === 'POST');

describe('dashboard map pages in a browser', () => {
  it(
    "draws the base map from the server's tiles and the POIs, clustered, filtered by name",
    async () => {
      await openMap('map', 'POI map', { zoom: 10, lat: 47.12, lon: 9.53 });
      await poll(() => page.locator('.map-status').textContent()).toMatch(/^9 POIs on the map/);
      // Three groups of three: at the zoom that fits them all, at least one group is a cluster marker.
      await poll(() => pixelsOf('#1d4ed8')).toBeGreaterThan(100);
      expect(requests.some((u) => /\/tiles\/\d+\/\d+\/\d+\.mvt$/.test(u))).toBe(true);
      expect(requests.some((u) => u.endsWith('.woff2'))).toBe(true);
      await checkA11y(page, 'map');
      await page.screenshot({ path: shot('map') });

      await page.getByLabel('Name contains').fill('schaan');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await poll(() => page.locator('.map-status').textContent()).toMatch(/^3 POIs on the map/);
    },
    SLOW,
  );

  it(
    'routes between two clicked points through the session without counting it as usage; the same request with a key counts',
    async () => {
      await openMap('routing', 'Routing', ROUTE_VIEW);
      const before = await usageTotal();
      await clickAt(ROUTE_VIEW, A.latitude, A.longitude);
      await clickAt(ROUTE_VIEW, B.latitude, B.longitude);
      await poll(() => page.locator('ol.waypoints li').count()).toBe(2);
      const reply = routeReply();
      await page.getByRole('button', { name: 'Plan route' }).click();
      const res = await reply;
      expect(res.status()).toBe(200);
      const sent = res.request().postDataJSON();
      const route = (await res.json()).data;
      expect(route.legs).toHaveLength(1);
      expect(route.distance).toBeGreaterThan(3000);
      expect(route.avoided).toBeNull();
      await poll(() => page.locator('#route-title').textContent()).toMatch(/^Route: \d+\.\d\d km, \d+ min$/);
      await poll(() => pixelsOf('#1d4ed8')).toBeGreaterThan(300);
      await checkA11y(page, 'routing');

      expect(await usageTotal()).toBe(before);
      const withKey = await api(app, 'POST', '/v1/routes', { key, body: sent });
      expect(withKey.status).toBe(200);
      expect(withKey.body.data.distance).toBeCloseTo(route.distance, 3);
      expect(await usageTotal()).toBe(before + 1);

      // Through the session the routes are still the team's: another team's POI is unknown here.
      const foreign = await makeTeam(app);
      const theirs = await api(app, 'POST', '/v1/pois', { key: foreign.key, body: { name: 'Not ours', latitude: B.latitude, longitude: B.longitude } });
      const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const csrf = ((await (await fetch(`${app.url}/dashboard/api/session`, { headers: { cookie } })).json()) as any).data.csrf_token;
      const viaSession = await api(app, 'POST', '/dashboard/api/v1/routes', {
        headers: { cookie, 'x-csrf-token': csrf },
        body: { waypoints: [A, { poi_id: theirs.body.data.id }] },
      });
      expect(viaSession.status).toBe(422);
      expect(Object.keys(viaSession.body.errors)).toEqual(['waypoints.1.poi_id']);
      expect((await api(app, 'POST', '/dashboard/api/v1/routes', { headers: { cookie }, body: { waypoints: [A, B] } })).status).toBe(403);
      expect(await usageTotal()).toBe(before + 1);
    },
    SLOW,
  );

  it(
    'routes a lorry of the size set on the page, and names a bad size at its field',
    async () => {
      await openMap('routing', 'Routing', ROUTE_VIEW);
      await clickAt(ROUTE_VIEW, A.latitude, A.longitude);
      await clickAt(ROUTE_VIEW, B.latitude, B.longitude);
      await poll(() => page.locator('ol.waypoints li').count()).toBe(2);
      expect(await page.getByLabel('Height (meters)').count()).toBe(0); // only for lorries
      await page.getByLabel('Profile').selectOption('driving-hgv');
      await page.getByLabel('Height (meters)').fill('tall');
      let reply = routeReply();
      await page.getByRole('button', { name: 'Plan route' }).click();
      expect((await reply).status()).toBe(422);
      await poll(() => page.locator('#lorry-height-error').textContent()).toMatch(/must be a number of meters between 1 and 10/);
      await page.getByLabel('Height (meters)').fill('2.5');
      await page.getByLabel('Weight (tonnes)').fill('3.5');
      reply = routeReply();
      await page.getByRole('button', { name: 'Plan route' }).click();
      const res = await reply;
      expect(res.status(), await res.text()).toBe(200);
      const sent = res.request().postDataJSON();
      expect(sent).toMatchObject({ profile: 'driving-hgv', vehicle: { height: 2.5, weight: 3.5 } });
      expect(Object.keys(sent.vehicle)).toEqual(['height', 'weight']);
      await poll(() => page.locator('#route-title').textContent()).toMatch(/^Route: /);
      // The same waypoints for the default lorry: never faster than the smaller one.
      const van = (await res.json()).data;
      const lorry = await api(app, 'POST', '/v1/routes', { key, body: { profile: 'driving-hgv', waypoints: sent.waypoints } });
      expect(lorry.status).toBe(200);
      expect(van.duration).toBeLessThanOrEqual(lorry.body.data.duration);
      await checkA11y(page, 'routing (lorry size)');
      await page.screenshot({ path: shot('routing-lorry') });
    },
    SLOW,
  );

  it(
    'routes around a POI picked on the map',
    async () => {
      // A POI on the plain route's middle, then the same two points with that POI picked to avoid.
      const plain = await api(app, 'POST', '/v1/routes', { key, body: { waypoints: [A, B] } });
      const line: number[][] = plain.body.data.geometry.coordinates;
      const [lon, lat] = line[Math.floor(line.length / 2)];
      const poi = await api(app, 'POST', '/v1/pois', { key, body: { name: 'Roadworks', latitude: lat, longitude: lon } });
      expect(poi.status).toBe(201);
      expect(distanceToLine({ latitude: lat, longitude: lon }, line)).toBeLessThan(1);

      await openMap('routing', 'Routing', ROUTE_VIEW);
      await poll(() => pixelsOf('#6b7280')).toBeGreaterThan(20); // the POIs are drawn
      await clickAt(ROUTE_VIEW, A.latitude, A.longitude);
      await clickAt(ROUTE_VIEW, B.latitude, B.longitude);
      await poll(() => page.locator('ol.waypoints li').count()).toBe(2);
      await page.getByRole('radio', { name: /picks a POI to avoid/ }).check();
      await clickAt(ROUTE_VIEW, lat, lon);
      await poll(() => page.getByText(/1 POI picked on the map/).count()).toBe(1);
      await page.getByLabel('Radius (meters, 10 to 500)').fill('120');
      const reply = routeReply();
      await page.getByRole('button', { name: 'Plan route' }).click();
      const res = await reply;
      expect(res.status()).toBe(200);
      expect(res.request().postDataJSON().avoid).toEqual({ radius: 120, poi_ids: [poi.body.data.id] });
      const route = (await res.json()).data;
      expect(route.avoided).toMatchObject({ radius: 120, count: 1, poi_ids: [poi.body.data.id] });
      expect(distanceToLine({ latitude: lat, longitude: lon }, route.geometry.coordinates)).toBeGreaterThan(120);
      await poll(() => page.getByText('Avoided 1 POI by 120 m.').count()).toBe(1);
      // The avoided circle (its outline in the avoidance red) and the route are on the map.
      await poll(() => pixelsOf('#b91c1c')).toBeGreaterThan(30);
      await poll(() => pixelsOf('#1d4ed8')).toBeGreaterThan(300);
      await page.screenshot({ path: shot('routing') });
    },
    SLOW,
  );

  it(
    'routes with the options of issue 36: a class kept off, an area drawn on the map, curbside arrival and alternatives in a second colour',
    async () => {
      const plain = await api(app, 'POST', '/v1/routes', { key, body: { waypoints: [A, B] } });
      const line: number[][] = plain.body.data.geometry.coordinates;
      const [lon, lat] = line[Math.floor(line.length / 2)];
      // A square of about 300 m around the plain route's middle.
      const dLat = 150 / 111_320,
        dLon = 150 / (111_320 * Math.cos((lat * Math.PI) / 180));
      const corners = [
        [lon - dLon, lat - dLat],
        [lon + dLon, lat - dLat],
        [lon + dLon, lat + dLat],
        [lon - dLon, lat + dLat],
      ];
      await openMap('routing', 'Routing', ROUTE_VIEW);
      await clickAt(ROUTE_VIEW, A.latitude, A.longitude);
      await clickAt(ROUTE_VIEW, B.latitude, B.longitude);
      await poll(() => page.locator('ol.waypoints li').count()).toBe(2);
      await page.getByRole('checkbox', { name: 'unpaved ways' }).check();
      await page.getByRole('checkbox', { name: /curbside/ }).check();
      await page.getByLabel('Alternative routes (2 waypoints)').selectOption('2');
      await page.getByRole('radio', { name: /draws an area to avoid/ }).check();
      for (const [x, y] of corners) await clickAt(ROUTE_VIEW, y, x);
      await poll(() => page.getByText('An area of 4 corners is avoided.').count()).toBe(1);
      const reply = routeReply();
      await page.getByRole('button', { name: 'Plan route' }).click();
      const res = await reply;
      expect(res.status(), await res.text()).toBe(200);
      const sent = res.request().postDataJSON();
      expect(sent.exclude).toEqual(['unpaved']);
      expect(sent.alternatives).toBe(2);
      expect(sent.waypoints[1].approach).toBe('curb');
      expect(sent.waypoints[0].approach).toBeUndefined();
      expect(sent.avoid.polygons.type).toBe('Polygon');
      const ring: number[][] = sent.avoid.polygons.coordinates[0];
      expect(ring).toHaveLength(5);
      // The clicked corners, to within a pixel of the map at this zoom (about 10 m).
      ring.slice(0, 4).forEach(([x, y], i) => {
        expect(Math.abs(x - corners[i][0]) * 111_320 * Math.cos((lat * Math.PI) / 180)).toBeLessThan(15);
        expect(Math.abs(y - corners[i][1]) * 111_320).toBeLessThan(15);
      });
      const route = (await res.json()).data;
      // No point of the route inside the drawn square (its own corners, as sent).
      const xs = ring.map((p) => p[0]),
        ys = ring.map((p) => p[1]);
      const inside = (p: number[]) => p[0] > Math.min(...xs) && p[0] < Math.max(...xs) && p[1] > Math.min(...ys) && p[1] < Math.max(...ys);
      expect(route.geometry.coordinates.filter(inside)).toEqual([]);
      expect(route.alternatives.length).toBeGreaterThan(0);
      await poll(() => page.locator('p.alternatives').count()).toBe(1);
      await poll(() => page.getByText('Kept out of the area drawn.').count()).toBe(1);
      // The alternatives in violet, the route in blue, the area's outline in red.
      await poll(() => pixelsOf('#7c3aed')).toBeGreaterThan(100);
      await poll(() => pixelsOf('#1d4ed8')).toBeGreaterThan(300);
      await poll(() => pixelsOf('#b91c1c')).toBeGreaterThan(30);
      await checkA11y(page, 'routing (options)');
      await page.screenshot({ path: shot('routing-options') });
    },
    SLOW,
  );

  it(
    "clusters the team's POIs and colours each cluster",
    async () => {
      await openMap('clusters', 'Clusters', { zoom: 10, lat: 47.12, lon: 9.53 });
      await page.getByLabel('Clusters', { exact: true }).fill('3');
      await page.getByRole('button', { name: 'Make clusters' }).click();
      await poll(() => page.locator('#clusters-title').textContent()).toBe('3 clusters of 10 stops');
      await poll(() => page.locator('tbody tr').count()).toBe(3);
      for (const colour of ['#1f77b4', '#d62728', '#2ca02c']) await poll(() => pixelsOf(colour)).toBeGreaterThan(50);
      await checkA11y(page, 'clusters');
      await page.screenshot({ path: shot('clusters') });
    },
    SLOW,
  );

  it(
    "optimizes deliveries: draws each vehicle's tour, lists it, and shows an unassigned stop with its reason",
    async () => {
      const view = { zoom: 11, lat: 47.12, lon: 9.52 };
      await openMap('optimize', 'Optimize deliveries', view);
      await page.getByRole('button', { name: 'Pick the start on the map' }).click();
      await clickAt(view, 47.1408, 9.5199);
      await poll(() => page.getByLabel('Start latitude').inputValue()).toMatch(/^47\.14/);
      await page.getByLabel('Works from').fill('2026-06-01T08:00:00Z');
      await page.getByLabel('Works until').fill('2026-06-01T18:00:00Z');
      await page.getByRole('button', { name: 'Add a vehicle' }).click();
      await page.locator('#veh-1-lat').fill('47.1660');
      await page.locator('#veh-1-lon').fill('9.5100');
      await page.locator('#veh-1-from').fill('2026-06-01T08:00:00Z');
      await page.locator('#veh-1-to').fill('2026-06-01T18:00:00Z');
      // Typed stops go to POST /v1/routes/optimize; the team's POIs are planned as a batch job (optimize-pois.test.ts).
      const stops = GROUPS.flatMap((g) =>
        [0, 1, 2].map((i) => `${(g.lat + i * 0.0015).toFixed(4)},${(g.lon + (i % 2) * 0.002).toFixed(4)},${g.name} depot ${i + 1}`),
      ).join('\n');
      await page.getByLabel(/^Stops, one a line/).fill(`${stops}\n47.1500,9.5300,Night delivery,2026-06-01T22:00:00Z,2026-06-01T23:00:00Z`);
      await page.getByRole('button', { name: 'Optimize', exact: true }).click();
      await poll(() => page.locator('#tours-title').textContent(), 30_000).toMatch(/^9 of 10 stops on 2 tours: /);
      await poll(() => page.locator('.tour').count()).toBe(2);
      await poll(() => page.locator('ul.unassigned li').textContent()).toMatch(/^Night delivery: .*working hours/);
      for (const colour of ['#1f77b4', '#d62728']) await poll(() => pixelsOf(colour)).toBeGreaterThan(200);
      await checkA11y(page, 'optimize');
      await page.screenshot({ path: shot('optimize'), fullPage: true });
    },
    SLOW,
  );

  it('asked no host but the server for anything', () => {
    const foreign = requests.filter((u) => !u.startsWith(app.url) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(foreign).toEqual([]);
    expect(requests.length).toBeGreaterThan(50);
    expect(consoleErrors.filter((e) => !/status of (401|403|404|422)/.test(e))).toEqual([]);
  });
});

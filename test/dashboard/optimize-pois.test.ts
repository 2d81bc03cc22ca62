import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { App } from '../../src/app.js';
import { testMapDir } from '../geo-api/support.js';
import { api, startTestApp } from '../support/app.js';
import { freshDatabase } from '../faults/support.js';
import { checkA11y, openBrowser, poll, shot, signInOnPage } from './browser-support.js';
import { makeDashboardTeam } from './support.js';

/**
 * The optimize page planning the team's POIs in Debian's chromium against the real server, job runner,
 * PostgreSQL and Liechtenstein map: POIs that share a name are told apart (stop ids are POI ids), a POI
 * far from any road and one closed that day are listed as unassigned with why, the others are toured.
 * Its own database: the plan runs as a batch job, which another test file's runner must not take.
 */
let app: App & { url: string };
let db: Awaited<ReturnType<typeof freshDatabase>>;
let browser: Browser;
let page: Page;
let consoleErrors: string[] = [];
let team: Awaited<ReturnType<typeof makeDashboardTeam>>;

const DAY = '2026-06-01'; // a Monday
const SHOPS = [
  { name: 'Volg', latitude: 47.1408, longitude: 9.5215, hours: 'Mo-Sa 08:00-18:30' },
  { name: 'Volg', latitude: 47.1652, longitude: 9.5098, hours: 'Mo-Fr 07:30-12:00,13:30-18:00' },
  { name: 'Volg', latitude: 47.0668, longitude: 9.5018, hours: 'Mo-Fr 09:00-17:00' },
  { name: 'Bäckerei', latitude: 47.1512, longitude: 9.5167, hours: 'Mo-Fr 06:30-12:00' },
  { name: 'Sunday market', latitude: 47.1215, longitude: 9.5135, hours: 'Su 08:00-12:00' },
  // In the mountains east of Vaduz: no road for cars within 500 m.
  { name: 'Alp hut', latitude: 47.07, longitude: 9.63, hours: '24/7' },
];

beforeAll(async () => {
  db = await freshDatabase('dashopt');
  app = await startTestApp({ DATABASE_URL: db.url, WAYMARK_MAP: await testMapDir(), WAYMARK_PROFILES: 'driving-car' });
  team = await makeDashboardTeam(app, { name: 'Alpine Grocers', plan: 'pro' }, 'dispatch@grocers.example');
  const key = (await createKey(app.sql, { teamId: team.teamId, name: 'scripts', permissions: parsePermissionList('all') })).key;
  expect((await api(app, 'POST', '/v1/attributes', { key, body: { name: 'opening_hours', type: 'string' } })).status).toBe(201);
  for (const s of SHOPS) {
    const res = await api(app, 'POST', '/v1/pois', {
      key,
      body: { name: s.name, latitude: s.latitude, longitude: s.longitude, attributes: { opening_hours: s.hours } },
    });
    expect(res.status).toBe(201);
  }
  ({ browser, page, consoleErrors } = await openBrowser(app.url));
  await signInOnPage(page, app.url, team.email, team.password, 'API keys');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await db?.drop();
});

describe("the optimize page with the team's POIs", () => {
  it('plans every POI by id with a break, tours the open ones and lists the closed and the off-road one with why', async () => {
    await page.goto(`${app.url}/dashboard/optimize#11/47.12/9.53`);
    await poll(() => page.locator('h1').textContent()).toBe('Optimize deliveries');
    await page.getByLabel('Start latitude').fill('47.1393');
    await page.getByLabel('Start longitude').fill('9.5215');
    await page.getByLabel('Works from').fill(`${DAY}T07:00:00+02:00`);
    await page.getByLabel('Works until').fill(`${DAY}T19:00:00+02:00`);
    await page.getByRole('button', { name: "Use the team's POIs" }).click();
    await poll(() => page.locator('.hint', { hasText: 'POIs; each is a stop by its id' }).textContent()).toMatch(/^6 POIs/);
    await page.getByLabel('Opening hours from attribute').selectOption('opening_hours');
    // A 15-minute break to start between 09:05 and 09:30.
    await page.getByLabel('Break minutes (optional)').fill('15');
    await page.getByLabel('Break from').fill(`${DAY}T09:05:00+02:00`);
    await page.getByLabel('Break until').fill(`${DAY}T09:30:00+02:00`);
    const submitted = page.waitForResponse((r: Response) => r.url().endsWith('/dashboard/api/v1/optimizations') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Optimize', exact: true }).click();
    const sent = await submitted;
    expect(sent.status()).toBe(202);
    const body = JSON.parse(sent.request().postData()!);
    expect(body.stops).toEqual({ pois: {}, time_windows_from: 'opening_hours' });
    expect(body.vehicles[0].breaks).toEqual([{ id: 'break', service: 900, time_windows: [[`${DAY}T09:05:00+02:00`, `${DAY}T09:30:00+02:00`]] }]);
    await poll(() => page.locator('#tours-title').textContent(), 60_000).toMatch(/^4 of 6 stops on 1 tour: /);
    // The three shops named Volg are three stops, each named in the tour.
    const tour = await page.locator('.tour li').allTextContents();
    expect(tour.filter((t) => t.startsWith('Stop Volg'))).toHaveLength(3);
    expect(tour.filter((t) => t.startsWith('Stop Bäckerei'))).toHaveLength(1);
    // The break is in the tour, leaving 15 minutes after it starts, and starts inside its window.
    const [pause] = tour.filter((t) => t.startsWith('Break'));
    const [, arrives, leaves] = /arrives (\d\d:\d\d), leaves (\d\d:\d\d)/.exec(pause)!;
    const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
    expect(minutesOf(leaves) - 15).toBeGreaterThanOrEqual(Math.max(minutesOf(arrives), 9 * 60 + 5));
    expect(minutesOf(leaves) - 15).toBeLessThanOrEqual(9 * 60 + 30);
    const unassigned = await page.locator('ul.unassigned li').allTextContents();
    expect(unassigned.sort()).toEqual([
      'Alp hut: it is more than 500 m from a road usable by the driving-car profile',
      `Sunday market: it is closed on ${DAY} (opening hours 'Su 08:00-12:00')`,
    ]);
    // The morning-only bakery is served in the morning, in the vehicle's offset.
    const bakery = tour.find((t) => t.startsWith('Stop Bäckerei'))!;
    expect(Number(/arrives (\d\d):/.exec(bakery)![1])).toBeLessThan(12);
    await checkA11y(page, 'optimize with POIs');
    await page.screenshot({ path: shot('optimize-pois'), fullPage: true });
    // 401: the sign-in page asks for a session first; 404: the map asks for tiles outside the extract.
    expect(consoleErrors.filter((e) => !/status of (401|404)/.test(e))).toEqual([]);
  }, 150_000);

  it('plans typed stops with shipments and a break as a batch job: pickups before their deliveries, the shipment too big listed with why', async () => {
    // A fresh page: the one before left the form on the team's POIs.
    await page.goto(`${app.url}/dashboard/optimize#11/47.12/9.53`);
    await page.reload();
    await poll(() => page.locator('h1').textContent()).toBe('Optimize deliveries');
    await page.getByLabel('Start latitude').fill('47.1393');
    await page.getByLabel('Start longitude').fill('9.5215');
    await page.getByLabel('Capacity (optional)').fill('5');
    await page.getByLabel('Works from').fill(`${DAY}T07:00:00+02:00`);
    await page.getByLabel('Works until').fill(`${DAY}T19:00:00+02:00`);
    await page.getByLabel(/^Stops, one a line/).fill(['47.1408,9.5215,shop', '47.1652,9.5098,kiosk', '47.1512,9.5167,bakery'].join('\n'));
    // Crates from the southern shop to the kiosk; a piano bigger than the van.
    await page.getByLabel(/^Shipments \(optional\)/).fill(['47.0668,9.5018,47.1652,9.5098,crates,2', '47.1215,9.5135,47.1408,9.5215,piano,9'].join('\n'));
    await page.getByLabel('Break minutes (optional)').fill('20');
    await page.getByLabel('Break from').fill(`${DAY}T10:00:00+02:00`);
    await page.getByLabel('Break until').fill(`${DAY}T11:00:00+02:00`);
    const submitted = page.waitForResponse((r: Response) => r.url().endsWith('/dashboard/api/v1/optimizations') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Optimize', exact: true }).click();
    const sent = await submitted;
    expect(sent.status()).toBe(202);
    const body = JSON.parse(sent.request().postData()!);
    expect(body.shipments).toEqual([
      { id: 'crates', amount: 2, pickup: { latitude: 47.0668, longitude: 9.5018 }, delivery: { latitude: 47.1652, longitude: 9.5098 } },
      { id: 'piano', amount: 9, pickup: { latitude: 47.1215, longitude: 9.5135 }, delivery: { latitude: 47.1408, longitude: 9.5215 } },
    ]);
    expect(body.vehicles[0].breaks).toEqual([{ id: 'break', service: 1200, time_windows: [[`${DAY}T10:00:00+02:00`, `${DAY}T11:00:00+02:00`]] }]);
    // Three stops and two ends of each shipment: the crates' two and the three stops served.
    await poll(() => page.locator('#tours-title').textContent(), 60_000).toMatch(/^5 of 7 stops on 1 tour: /);
    const tour = await page.locator('.tour li').allTextContents();
    const at = (prefix: string) => tour.findIndex((t) => t.startsWith(prefix));
    expect(at('Pickup crates')).toBeGreaterThan(0);
    expect(at('Delivery crates')).toBeGreaterThan(at('Pickup crates'));
    for (const stop of ['Stop shop', 'Stop kiosk', 'Stop bakery']) expect(at(stop), stop).toBeGreaterThan(0);
    const [pause] = tour.filter((t) => t.startsWith('Break'));
    const [, leaves] = /leaves (\d\d:\d\d)/.exec(pause)!;
    const startsAt = Number(leaves.slice(0, 2)) * 60 + Number(leaves.slice(3)) - 20;
    expect(startsAt).toBeGreaterThanOrEqual(10 * 60);
    expect(startsAt).toBeLessThanOrEqual(11 * 60);
    const unassigned = await page.locator('ul.unassigned li').allTextContents();
    expect(unassigned).toEqual(['Shipment piano: demand exceeds every capacity']);
    await checkA11y(page, 'optimize with shipments');
    await page.screenshot({ path: shot('optimize-shipments'), fullPage: true });
    expect(consoleErrors.filter((e) => !/status of (401|404)/.test(e))).toEqual([]);
  }, 150_000);
});

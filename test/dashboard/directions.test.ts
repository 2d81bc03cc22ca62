import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testMapDir } from '../geo-api/support.js';
import { startTestApp } from '../support/app.js';
import { canvasStats, checkA11y, openBrowser, poll, shot, signInOnPage, waitForBaseMap } from './browser-support.js';
import { makeDashboardTeam } from './support.js';

/**
 * The routing page's directions in Debian's chromium against the real server and the bundled
 * Liechtenstein map: the steps listed beside the map in the language chosen, and a clicked step's stretch
 * drawn over the route (checked in the map's source and in the canvas' pixels), with the screenshot in docs/.
 */
let app: App & { url: string };
let browser: Browser;
let page: Page;
let consoleErrors: string[] = [];

const A = { latitude: 47.13929, longitude: 9.5228 }; // Vaduz, Städtle
const B = { latitude: 47.16761, longitude: 9.5084 }; // Schaan, Postplatz
const VIEW = { zoom: 13, lat: 47.1535, lon: 9.5156 };
/** The chosen step's colour on the map (opaque, used by no other layer). */
const STEP_COLOUR = 0xf59e0b;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir(), WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'driving-car' });
  const team = await makeDashboardTeam(app, { name: 'Acme Logistics', plan: 'pro' }, 'directions@acme.example');
  ({ browser, page, consoleErrors } = await openBrowser(app.url));
  await signInOnPage(page, app.url, team.email, team.password, 'API keys');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Pixels of the map's canvas that are exactly `want`. */
const pixelsOf = async (want: number) => (await canvasStats(page, want)).matching;

/** Where a point is on the map's canvas at the view it was opened with. */
async function clickAt(lat: number, lon: number) {
  const box = (await page.locator('.map canvas').boundingBox())!;
  const world = 512 * 2 ** VIEW.zoom;
  const mx = (l: number) => ((l + 180) / 360) * world;
  const my = (p: number) => ((1 - Math.log(Math.tan(Math.PI / 4 + (p * Math.PI) / 360)) / Math.PI) / 2) * world;
  await page.locator('.map canvas').click({ position: { x: box.width / 2 + mx(lon) - mx(VIEW.lon), y: box.height / 2 + my(lat) - my(VIEW.lat) } });
}

/** Software WebGL on a shared machine: a map page takes seconds to draw. */
const SLOW = 150_000;

describe('routing page directions', () => {
  it(
    'lists the steps in the chosen language beside the map and draws a clicked step over the route',
    async () => {
      await page.goto(`${app.url}/dashboard/routing#${VIEW.zoom}/${VIEW.lat}/${VIEW.lon}`);
      await poll(() => page.locator('h1').textContent()).toBe('Routing');
      await poll(() => page.locator('.map canvas').count(), 40_000).toBe(1);
      await waitForBaseMap(page);
      await clickAt(A.latitude, A.longitude);
      await clickAt(B.latitude, B.longitude);
      await poll(() => page.locator('ol.waypoints li').count()).toBe(2);
      await page.getByLabel('Directions in').selectOption('de');
      const reply = page.waitForResponse((r: Response) => r.url().endsWith('/dashboard/api/v1/routes') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Plan route' }).click();
      const res = await reply;
      expect(res.status(), await res.text()).toBe(200);
      expect(res.request().postDataJSON()).toMatchObject({ steps: true, language: 'de' });
      const steps: Array<{ instruction: string; distance: number; geometry: { coordinates: number[][] } }> = (await res.json()).data.legs[0].steps;
      expect(steps.length).toBeGreaterThan(3);

      // Every step listed, with its German sentence, in the panel beside the map.
      const items = page.locator('.steps-panel ol.steps li');
      await poll(() => items.count()).toBe(steps.length);
      expect(await items.first().textContent()).toContain(steps[0].instruction);
      expect(steps[0].instruction).toMatch(/^Fahren Sie /);
      expect(steps.at(-1)!.instruction).toMatch(/Sie haben Ihr Ziel erreicht/);
      const panel = (await page.locator('.steps-panel').boundingBox())!;
      const map = (await page.locator('.map').boundingBox())!;
      expect(panel.x).toBeGreaterThanOrEqual(map.x + map.width - 1);
      expect(panel.y).toBeLessThan(map.y + map.height);

      // Nothing chosen yet: no step colour on the map. The longest step, clicked: its line in the map's
      // source and drawn over the route.
      await poll(() => pixelsOf(0x1d4ed8), 40_000).toBeGreaterThan(300);
      expect(await pixelsOf(STEP_COLOUR)).toBe(0);
      const longest = steps.reduce((best, s, i) => (s.distance > steps[best].distance ? i : best), 0);
      await items.nth(longest).getByRole('button').click();
      await poll(() => page.locator('.steps-panel li.chosen').count()).toBe(1);
      expect(await page.locator('.steps-panel li.chosen').textContent()).toContain(steps[longest].instruction);
      // Polled: the list marks the step as it renders, and the page's effect sets the map's source after it
      // (a loaded CI run read the source in between once).
      const drawn = () =>
        page.evaluate(async () => {
          const source = (document.querySelector('.map') as any).maplibre.getSource('route-step');
          return (await source.getData()).features.map((f: any) => f.geometry.coordinates);
        });
      await poll(drawn).toEqual([steps[longest].geometry.coordinates]);
      await poll(() => pixelsOf(STEP_COLOUR), 40_000).toBeGreaterThan(200);

      // Another step moves the highlight.
      const other = longest === 0 ? 1 : 0;
      await items.nth(other).getByRole('button').click();
      await poll(async () =>
        page.evaluate(async () => {
          const source = (document.querySelector('.map') as any).maplibre.getSource('route-step');
          return (await source.getData()).features[0].geometry.coordinates.length;
        }),
      ).toBe(steps[other].geometry.coordinates.length);
      await items.nth(longest).getByRole('button').click();
      await poll(() => pixelsOf(STEP_COLOUR), 40_000).toBeGreaterThan(200);
      await checkA11y(page, 'routing directions');
      await page.screenshot({ path: shot('routing-steps') });
      // The sign-in's session probe (401) and tiles outside the extract (404) are expected; nothing else.
      expect(consoleErrors.filter((e) => !/status of (401|404)/.test(e))).toEqual([]);
    },
    SLOW,
  );
});

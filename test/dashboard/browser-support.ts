import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
import { openBrowser as openPage } from '../support/browser.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** expect.poll with room for a loaded machine (the whole suite runs beside these tests). */
export const poll = <T>(fn: () => Promise<T> | T, timeout = 10_000) => expect.poll(fn, { timeout, interval: 50 });

export const shot = (name: string) => join(projectRoot, 'docs', `dashboard-${name}.png`);

/** The shared chromium launcher at the dashboard's viewport, clipboard allowed for `url`. */
export const openBrowser = (url: string) => openPage({ width: 1280, height: 860 }, url);

/** axe-core on the page as it is: no serious or critical violations. Run through the DevTools
 *  protocol, which the page's CSP does not govern (the app itself allows no inline script). */
export async function checkA11y(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 5) }));
  });
  const bad = violations.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad, `${name}: ${JSON.stringify(bad, null, 1)}`).toEqual([]);
}

/** Signs in on the page's sign-in form (usable outside a test: it waits rather than polls). */
export async function signInOnPage(page: Page, url: string, email: string, password: string, landing: string): Promise<void> {
  await page.goto(`${url}/dashboard/`);
  await page.getByRole('heading', { level: 1, name: 'Sign in to Waymark' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: landing }).waitFor();
}

/** What the map's canvas shows: how many colours, the share of pixels that are not the empty background
 *  (a blank or failed map is one colour), and how many pixels are exactly `want` (the overlays' colours
 *  are opaque). */
export const canvasStats = (page: Page, want = -1) =>
  page.evaluate((want) => {
    const c = document.querySelector('.map canvas') as HTMLCanvasElement | null;
    if (!c?.width) return { colours: 0, drawn: 0, matching: 0 };
    const copy = document.createElement('canvas');
    copy.width = c.width;
    copy.height = c.height;
    const g = copy.getContext('2d')!;
    g.drawImage(c, 0, 0);
    const d = g.getImageData(0, 0, copy.width, copy.height).data;
    const colours = new Set<number>();
    let drawn = 0,
      sampled = 0,
      matching = 0;
    for (let i = 0, px = 0; i < d.length; i += 4, px++) {
      const rgb = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
      if (rgb === want) matching++;
      // Colours and coverage from every 7th pixel: enough to tell a drawn map from a blank one.
      if (px % 7) continue;
      colours.add(rgb);
      if (rgb !== 0xf3f0ea) drawn++;
      sampled++;
    }
    return { colours: colours.size, drawn: drawn / sampled, matching };
  }, want);

/** Waits until the map's canvas shows the base map (software WebGL on a shared machine takes seconds): a
 *  click before that can land on a map that does not yet take it. */
export async function waitForBaseMap(page: Page): Promise<void> {
  await poll(async () => {
    const p = await canvasStats(page);
    return p.colours > 40 && p.drawn > 0.1;
  }, 40_000).toBe(true);
}

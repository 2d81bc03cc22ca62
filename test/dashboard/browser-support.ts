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

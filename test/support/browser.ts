import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.WAYMARK_CHROMIUM ?? '/usr/bin/chromium';

/** Debian's chromium (never a downloaded browser), one page, its console errors and requests collected. */
export async function openBrowser(
  viewport: { width: number; height: number },
  origin?: string,
): Promise<{
  browser: Browser;
  page: Page;
  requests: string[];
  consoleErrors: string[];
}> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'UTC' });
  if (origin) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  return { browser, page, requests, consoleErrors };
}

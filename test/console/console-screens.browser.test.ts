import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { type ConsoleUser, consoleUser } from '../helpers/console.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent } from '../printing/helpers.ts';
import { chromiumForFile, signInOnPage } from './helpers.ts';

/**
 * Every page of the console on a laptop (1366×900) and a phone (390×844): photographed into
 * test-artifacts/console/ (git-ignored: look at them after a run, or keep them from CI),
 * checked with axe in the light and the dark colour scheme, and on the phone without
 * sideways scrolling and with the navigation folded behind one "Menu" button. Layout does
 * not depend on the database: SQLite only (the flows run on both in the other files).
 */
const root = resolve(import.meta.dirname, '../..');
const shots = join(root, 'test-artifacts/console');
const chromium = chromiumForFile();
const sizes = [
  { name: 'laptop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Each page: where it is, and what shows once it has loaded. */
const pages = [
  { name: 'overview', path: '/console/', ready: 'At a glance' },
  { name: 'jobs', path: '/console/jobs', ready: 'Jobs' },
  { name: 'job-failed', path: '/console/jobs/{failed}', ready: 'What went wrong' },
  { name: 'agents', path: '/console/agents', ready: 'Agents' },
  { name: 'templates', path: '/console/templates', ready: 'Templates' },
  { name: 'template', path: '/console/templates/{template}', ready: 'Try with sample data' },
  { name: 'tokens', path: '/console/tokens', ready: 'Tokens' },
  { name: 'webhooks', path: '/console/webhooks', ready: 'Webhooks' },
  { name: 'users', path: '/console/users', ready: 'Users' },
  { name: 'account', path: '/console/account', ready: 'Account' },
] as const;

describe('every console page at laptop and phone size', () => {
  let server: TestServer;
  let owner: ConsoleUser;
  let context: BrowserContext;
  let page: Page;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    server = await startTestServer();
    const company = await server.createCompany('Corner Bakery');
    owner = await consoleUser(server, company, 'owner');
    context = await chromium.browser.newContext();
    page = await context.newPage();
    await signInOnPage(page, server.url, owner);
    // Before any agent: the Overview's empty state says the next step.
    await page.getByRole('link', { name: 'Enrol your first computer' }).waitFor();
    const integrator = await integratorToken(server, company);
    const agent = await registerAgent(server, company, ['receipts']);
    for (let i = 1; i <= 4; i++) {
      await createJob(server, integrator, { title: `Order A-10${40 + i} for table ${i}` });
    }
    const claimed = await agent.next();
    await agent.call('POST', `/printing/jobs/${claimed.body.data.id}/error`, {
      message: 'Paper out',
      code: 'printer_not_ready',
    });
    ids.failed = claimed.body.data.id;
    // One agent stopped cleanly: offline at once, so every run shows an offline agent's
    // printers (their longest words) whatever the time the run takes.
    const stopped = await registerAgent(server, company, ['labels']);
    expect((await stopped.call('POST', '/printing/offline')).status).toBe(204);
    const templates = await server.token(company, ['printing.templates.write']);
    const example = (name: string) => readFileSync(join(root, 'docs/templates', name), 'utf8');
    const template = await server.request('POST', '/printing/templates', {
      token: templates,
      body: {
        name: 'shop-receipt',
        kind: 'receipt',
        source: example('shop-receipt.liquid'),
        sample_data: JSON.parse(example('shop-receipt.json')),
      },
    });
    ids.template = template.body.data.id;
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await server?.close();
  });

  const address = (path: string) =>
    server.url + path.replace(/\{(\w+)\}/, (_, name: string) => String(ids[name]));
  const loaded = (ready: string) =>
    page.getByRole('heading', { name: ready, exact: true }).first().waitFor();

  describe.each(sizes)('at $width×$height ($name)', (size) => {
    it.each(pages)(
      '$name: photographed, axe-clean light and dark, no sideways scroll',
      async (shown) => {
        await page.setViewportSize({ width: size.width, height: size.height });
        await page.emulateMedia({ colorScheme: 'light' });
        await page.goto(address(shown.path));
        await loaded(shown.ready);
        expect(await page.title()).toMatch(/ · ShopDesk$/);
        await page.screenshot({
          path: join(shots, `${shown.name}-${size.name}.png`),
          fullPage: true,
        });
        expect(await seriousViolations(page), 'light').toEqual([]);
        const sideways = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(sideways, 'pixels of sideways scrolling').toBeLessThanOrEqual(0);
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.screenshot({ path: join(shots, `${shown.name}-${size.name}-dark.png`) });
        expect(await seriousViolations(page), 'dark').toEqual([]);
      },
    );
  });

  it.each(sizes)(
    'the sign-in and set-password pages at $name size, before signing in',
    async (size) => {
      const outside = await chromium.browser.newContext({ viewport: size });
      try {
        const fresh = await outside.newPage();
        for (const [name, path, heading] of [
          ['sign-in', '/console/', 'Sign in to ShopDesk'],
          ['set-password', '/console/set-password#code=not-a-real-code', 'Choose your password'],
        ] as const) {
          await fresh.emulateMedia({ colorScheme: 'light' });
          await fresh.goto(server.url + path);
          await fresh.getByRole('heading', { name: heading }).waitFor();
          await fresh.screenshot({ path: join(shots, `${name}-${size.name}.png`) });
          expect(await seriousViolations(fresh), `${name} light`).toEqual([]);
          const sideways = await fresh.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          expect(sideways, `${name}: pixels of sideways scrolling`).toBeLessThanOrEqual(0);
          await fresh.emulateMedia({ colorScheme: 'dark' });
          expect(await seriousViolations(fresh), `${name} dark`).toEqual([]);
        }
      } finally {
        await outside.close();
      }
    },
  );

  it('folds the navigation behind one Menu button on a phone, and opens a page from it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(address('/console/'));
    await loaded('At a glance');
    const nav = page.getByRole('navigation', { name: 'Console' });
    expect(await nav.isVisible()).toBe(false);
    const bar = await page.locator('header.top').boundingBox();
    expect(bar!.height).toBeLessThan(64);
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Jobs' }).click();
    await loaded('Jobs');
    // Closed by the same click that opened the page: waited for, not sampled mid-render.
    await nav.waitFor({ state: 'hidden', timeout: 2000 });
    expect(await nav.isVisible()).toBe(false);
  });

  it('serves its icon at /favicon.ico and links it from the page', async () => {
    const icon = await fetch(`${server.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    const bytes = new Uint8Array(await icon.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO file's header
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.ico');
  });
});

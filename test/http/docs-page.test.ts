import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The docs page, used as a person uses it, in Debian's Chromium: opened at 127.0.0.1 on a
 * random port (not the localhost:8080 of the README), "Authorize" with a token, "Try it out"
 * on GET /me, and the answer read off the page.
 */

let server: TestServer;
let token: string;
let browser: Browser;
let page: Page;
const requested: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token(await server.createCompany('Docs Shop'), ['customers.read']);
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the docs page in Chromium', () => {
  // About 4 s on an idle machine: Swagger UI parses and renders the whole document. In a full
  // CI run under load it took past 30 s once (the next test's one click and render: 7 s
  // instead of 1). Each wait below keeps Playwright's own 30 s.
  it('authorizes, runs GET /me with "Try it out", and shows 200 with the caller', async () => {
    await page.goto(`${server.url}/api/v1/docs`);
    // Swagger UI renders the operations once it has loaded the document.
    const me = page.locator('#operations-Connectivity-me');
    await me.waitFor();

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('input').first().fill(token);
    await dialog.locator('button.authorize').click();
    await dialog.locator('button.btn-done').click();

    await me.locator('.opblock-summary').click();
    await me.locator('button.try-out__btn').click();
    await me.locator('button.execute').click();

    const status = me.locator('.live-responses-table .response .response-col_status');
    await status.first().waitFor();
    expect((await status.first().innerText()).trim()).toBe('200');
    const body = await me.locator('.live-responses-table .response-col_description pre').first();
    expect(await body.innerText()).toContain('Docs Shop');

    // The call went to the origin the page was opened at: the document's server is relative.
    expect(requested).toContain(`${server.url}/api/v1/me`);
    expect(requested.every((url) => url.startsWith(`${server.url}/`))).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('fills a request body from the example of the schema (POST /customers)', async () => {
    const create = page.locator('#operations-Customers-createCustomer');
    await create.waitFor();
    await create.locator('.opblock-summary').click();
    const example = create.locator('.opblock-section-request-body .highlight-code').first();
    await example.waitFor();
    expect(await example.innerText()).toContain('Ada Lovelace');
  });
});

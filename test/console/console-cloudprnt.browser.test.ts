import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { consoleUser, ensureConsoleBuilt } from '../helpers/console.ts';
import { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import { EpsonSdpPrinter } from '../helpers/printer-simulators/epson-sdp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The Agents page's "Add a CloudPRNT or Epson printer" in Chromium (docs/cloudprnt.md): the
 * kind chosen, the three settings shown once with Copy in that printer's words, the focus on
 * them, and a printer polling with them shows up; its password revoked, it is refused.
 */
describe('the console: adding a CloudPRNT or Epson printer', () => {
  let browser: Browser;
  let server: TestServer;
  let page: Page;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    browser = await launchChromium();
    server = await startTestServer();
    const company = await server.createCompany('Printer Shop');
    const owner = await consoleUser(server, company, 'owner');
    page = await browser.newPage();
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const openAgents = () =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Agents' }).click();

  it('shows the URL, user and password once, and the printer that uses them appears', async () => {
    await openAgents();
    await page.getByRole('button', { name: 'Add a CloudPRNT or Epson printer' }).click();
    expect(await page.getByRole('radio', { name: /^Star/ }).isChecked()).toBe(true);
    await page.getByLabel('Route it prints').fill('kitchen');
    await page.getByLabel('Name').fill('Kitchen printer');
    await page.getByRole('button', { name: 'Add printer' }).click();
    const settings = page.getByTestId('cloudprnt-settings');
    await settings.waitFor();
    expect(await settings.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    const url = await page.getByTestId('cloudprnt-url').textContent();
    const user = await page.getByTestId('cloudprnt-user').textContent();
    const password = await page.getByTestId('cloudprnt-password').textContent();
    expect(url).toBe(`${server.api}/cloudprnt`);
    expect(await settings.getByRole('button', { name: /^Copy the / }).count()).toBe(3);

    await new CloudPrntPrinter({ url: url!, user: user!, password: password! }).cycle();
    await page.reload();
    const agent = page.getByRole('region', { name: /Kitchen printer/ });
    await expect.poll(() => agent.textContent()).toContain('Online');
    expect(await agent.textContent()).toContain('kitchen');
    expect(await agent.getByRole('button', { name: /^Re-enrol/ }).count()).toBe(0);

    page.once('dialog', (dialog) => void dialog.accept());
    await agent.getByRole('button', { name: 'Revoke its password: Kitchen printer' }).click();
    await agent.getByText("Kitchen printer's password is revoked").waitFor();
    const revoked = new CloudPrntPrinter({ url: url!, user: user!, password: password! });
    await expect(revoked.poll()).rejects.toThrow('poll answered 401');
  });

  it('with the keyboard, adds an Epson printer: its WebConfig values with Copy; it prints, and its password can be revoked', async () => {
    await openAgents();
    await page.getByRole('button', { name: 'Add a CloudPRNT or Epson printer' }).click();
    // The form opens on its first choice; the arrow keys choose, Tab moves on, Enter sends.
    const star = page.getByRole('radio', { name: /^Star/ });
    expect(await star.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: /^Epson/ }).isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Tab');
    await page.keyboard.type('bar');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Bar printer');
    await page.keyboard.press('Enter');
    const settings = page.getByTestId('cloudprnt-settings');
    await settings.waitFor();
    expect(await settings.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await settings.textContent()).toContain('Server Direct Print');
    expect(await settings.textContent()).toContain('Status Notification');
    for (const name of ['Copy the URL', 'Copy the ID', 'Copy the password']) {
      expect(await settings.getByRole('button', { name }).count()).toBe(1);
    }
    const url = (await page.getByTestId('cloudprnt-url').textContent())!;
    const id = (await page.getByTestId('cloudprnt-user').textContent())!;
    const password = (await page.getByTestId('cloudprnt-password').textContent())!;
    expect(url).toBe(`${server.api}/cloudprnt/epson`);

    const printer = new EpsonSdpPrinter({ url, id, password, statusEvery: 1 });
    await printer.cycle();
    expect(printer.wire).toEqual(['SetStatus 200', 'GetRequest 200 empty']);
    await page.reload();
    const agent = page.getByRole('region', { name: /Bar printer/ });
    await expect.poll(() => agent.textContent()).toContain('Online');
    expect(await agent.textContent()).toContain('epson-sdp');

    page.once('dialog', (dialog) => void dialog.accept());
    await agent.getByRole('button', { name: 'Revoke its password: Bar printer' }).click();
    await agent.getByText("Bar printer's password is revoked").waitFor();
    await printer.getRequest();
    expect(printer.wire.at(-1)).toBe('GetRequest 401');
  });
});

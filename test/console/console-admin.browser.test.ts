import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { type ConsoleUser, consoleUser, ensureConsoleBuilt } from '../helpers/console.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, integratorToken } from '../printing/helpers.ts';
import { startWebhookServer, subscribe } from '../webhooks/helpers.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { signInOnPage } from './helpers.ts';

/** The owner's pages in Chromium: webhooks (deliveries, redeliver, rotate) and users. */
describe('the console for an owner: webhooks and users', () => {
  let browser: Browser;
  let server: TestServer;
  let page: Page;
  let owner: ConsoleUser;
  let companyId: number;
  const receiver = new Receiver();

  beforeAll(async () => {
    await ensureConsoleBuilt();
    browser = await launchChromium();
    server = await startWebhookServer();
    await receiver.start();
    companyId = await server.createCompany('Hooks Shop');
    owner = await consoleUser(server, companyId, 'owner');
    const manager = await server.token(companyId, ['webhooks.manage']);
    await subscribe(server, manager, receiver, ['print_job.created']);
    page = await browser.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await signInOnPage(page, server.url, owner);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver.stop();
  });

  it('shows an endpoint’s deliveries, redelivers one and rotates the secret', async () => {
    await createJob(server, await integratorToken(server, companyId));
    await receiver.waitFor(1);
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    const row = page.locator('tr', { hasText: 'print_job.created' });
    await expect.poll(() => row.textContent()).toContain('delivered');
    expect(await seriousViolations(page)).toEqual([]);
    await row.getByRole('button', { name: /^Redeliver/ }).click();
    await receiver.waitFor(2);
    expect(receiver.events.map((event) => event.type)).toEqual([
      'print_job.created',
      'print_job.created',
    ]);
    await page.getByRole('button', { name: /^Rotate secret of / }).click();
    const secret = page.getByRole('dialog').getByRole('textbox', { name: 'Signing secret' });
    expect(await secret.inputValue()).toMatch(/^whsec_/);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  });

  it('invites someone with a link, and removes them', async () => {
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Users' })
      .click();
    await page.getByRole('heading', { name: 'Invite someone' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('E-mail').fill('new.staff@shop.example');
    await page.getByLabel('Role', { exact: true }).selectOption('staff');
    await page.getByRole('button', { name: 'Invite' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invitation for new.staff@shop.example' });
    const link = await dialog.getByRole('textbox', { name: 'One-time link' }).inputValue();
    expect(link).toMatch(/\/console\/set-password#code=/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    // The link, opened in another browser, sets the password once; then the person signs in.
    const other = await browser.newPage();
    await other.goto(link);
    await other.getByLabel('Password (at least 10 characters)').fill('my new passphrase');
    await other.getByLabel('Password again').fill('my new passphrase');
    expect(await seriousViolations(other)).toEqual([]);
    await other.getByRole('button', { name: 'Set password' }).click();
    await other.getByText('Your password is set.').waitFor();
    await other.close();
    await page.getByRole('button', { name: 'Remove new.staff@shop.example' }).click();
    await expect.poll(() => page.getByText('new.staff@shop.example').count()).toBe(0);
  });
});

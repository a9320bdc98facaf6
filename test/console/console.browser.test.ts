import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { type ConsoleUser, consoleRequest } from '../helpers/console.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from '../printing/helpers.ts';
import { chromiumForFile, consoleCompany, signInOnPage } from './helpers.ts';

/**
 * The console in a real Chromium, as a shop manager uses it: signed in on one instance
 * while the agent and the shop system talk to the other (PostgreSQL: two instances of one
 * database; SQLite: the one instance). Every page is checked with axe-core. One Chromium for
 * the file (a launch costs seconds of CPU); each database gets its own browser contexts, so
 * nothing of one run (cookies, storage) is seen by the other.
 */
const chromium = chromiumForFile();

describe.each(['sqlite', 'postgres'] as const)('the console in Chromium, on %s', (dialect) => {
  const shop = consoleCompany(dialect, 'Browser Shop');
  let owner: ConsoleUser;
  let staff: ConsoleUser;
  let integrator: string;
  let context: BrowserContext;
  let page: Page;
  let agent: TestAgent;

  beforeAll(async () => {
    owner = await shop.user('owner');
    staff = await shop.user('staff');
    integrator = await integratorToken(shop.instances.two, shop.companyId);
    context = await chromium.browser.newContext();
    page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
  }, 60_000);
  afterAll(() => context?.close());

  async function expectAccessible(): Promise<void> {
    expect(await seriousViolations(page)).toEqual([]);
  }

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });

  it('signs in by keyboard alone, on a page without an accessibility fault', async () => {
    await page.goto(`${shop.instances.one.url}/`);
    await expect
      .poll(() => page.getByRole('heading', { name: 'Sign in to ShopDesk' }).count())
      .toBe(1);
    await expectAccessible();
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type(owner.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(owner.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    for (const name of ['Overview', 'Jobs', 'Agents', 'Templates', 'Tokens', 'Webhooks']) {
      expect(await nav(name).count(), name).toBe(1);
    }
    await expectAccessible();
    // By keyboard: the first stop skips to the page's content; the navigation follows it.
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Overview');
  });

  it('sees an agent come online without a reload', async () => {
    await expect.poll(() => page.getByTestId('agents-online').textContent()).toBe('0');
    agent = await registerAgent(shop.instances.two, shop.companyId, ['receipts']);
    await expect.poll(() => page.getByTestId('agents-online').textContent()).toBe('1');
  });

  it('shows a job created by the API, and its turn to printed, without a reload', async () => {
    await nav('Jobs').click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await expectAccessible();
    const job = await createJob(shop.instances.two, integrator, { title: 'Receipt 77' });
    const row = page.locator(`tr[data-job="${job.id}"]`);
    await row.waitFor({ timeout: 5000 });
    expect(await row.textContent()).toContain('Waiting to print');
    const claimed = await agent.next();
    expect(claimed.body.data.id).toBe(job.id);
    await agent.call('POST', `/printing/jobs/${job.id}/confirm`, { printer: 'EPSON' });
    await expect.poll(() => row.textContent()).toContain('Printed');
    // Filtered by state and agent, newest first.
    await page.getByLabel('State').selectOption('printed');
    await page.getByLabel('Agent').selectOption(agent.uuid);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.url()).toContain(`agent_id=${agent.uuid}`);
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(1);
  });

  it('reprints a printed job from its page, with its history and document', async () => {
    const printed = page.locator('tr', { hasText: 'Printed' }).first().getByRole('link');
    await printed.click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    const original = page.url();
    expect(await page.getByTestId('job-state').textContent()).toBe('Printed');
    await page.getByText('Hello, printer').waitFor();
    await expectAccessible();
    await page.getByRole('button', { name: 'Reprint' }).click();
    // The reprint is a new job: its own page, pointing back at the original.
    await expect.poll(() => page.getByTestId('job-state').textContent()).toBe('Waiting to print');
    expect(page.url()).not.toBe(original);
    expect(await page.locator('dt', { hasText: 'Reprint of' }).count()).toBe(1);
  });

  it('cancels a queued job, by keyboard', async () => {
    // The agent is busy with the reprint: take it first so that the new job stays queued.
    const reprint = await agent.next();
    expect(reprint.status).toBe(200);
    const job = await createJob(shop.instances.two, integrator, { title: 'Label 5' });
    await page.goto(`${shop.instances.one.url}/console/jobs/${job.id}`);
    await page.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('job-state').textContent()).toBe('Cancelled');
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
  });

  it('says why a queued job waits and what to do, on its page and in the list', async () => {
    const job = await createJob(shop.instances.two, integrator, {
      route: 'nobody',
      title: 'Label 6',
    });
    await page.goto(`${shop.instances.one.url}/console/jobs/${job.id}`);
    await expect
      .poll(() => page.getByTestId('job-wait-reason').textContent())
      .toBe(
        'no print agent serves route nobody. Give this route to a print agent (its settings, or the console).',
      );
    await expectAccessible();
    await page.goto(`${shop.instances.one.url}/console/jobs`);
    const row = page.locator(`tr[data-job="${job.id}"]`);
    await expect.poll(() => row.textContent()).toContain('Waiting to print');
    expect(await row.textContent()).toContain('no print agent serves route nobody');
  });

  it('lists agents with their printers, and makes an enrolment code', async () => {
    await nav('Agents').click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    expect(await page.getByTestId('agent-presence').first().textContent()).toBe('Online');
    await page.getByRole('button', { name: 'Enrol an agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enrol an agent' });
    await dialog.getByRole('checkbox', { name: 'receipts' }).check();
    await dialog.getByRole('button', { name: 'Make the code' }).click();
    const code = await page
      .getByRole('dialog')
      .getByRole('textbox', { name: 'Enrolment code' })
      .inputValue();
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    await expectAccessible();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  });

  it("edits an agent's routes; the agent's configuration has them at once", async () => {
    const name = `Till ${agent.uuid.slice(0, 4)}`;
    await page.getByRole('button', { name: `Edit routes of ${name}` }).click();
    const form = page.getByRole('form', { name: `Routes of ${name}` });
    await form.getByRole('checkbox', { name: 'Enabled' }).uncheck();
    await form.getByRole('button', { name: 'Add a route' }).click();
    await form.getByLabel('Route name').nth(1).fill('labels');
    await form.getByLabel('Printer', { exact: true }).nth(1).selectOption('EPSON');
    await form.getByLabel('Backup printers (optional)').nth(1).fill('Front-2, Office');
    await form.getByLabel('Printer profile').nth(1).selectOption('4×6 in label, ZPL 203 dpi');
    await expectAccessible();
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.', { exact: false }).waitFor();
    const config = await agent.call('GET', '/printing/config');
    expect(config.body.data.routes).toMatchObject([
      { name: 'receipts', printer: 'EPSON', enabled: false },
      {
        name: 'labels',
        printer: 'EPSON',
        backup_printers: ['Front-2', 'Office'],
        enabled: true,
        profile: { language: 'zpl', width_mm: 102, dpi: 203 },
      },
    ]);
    expect(config.body.data.routes[0]).not.toHaveProperty('backup_printers');
    await page
      .getByText('labels → EPSON, else Front-2, else Office · profile: 4×6 in label, ZPL 203 dpi')
      .waitFor();
  });

  it('makes a code that re-enrols an agent’s computer, and that computer alone', async () => {
    const name = `Till ${agent.uuid.slice(0, 4)}`;
    await page.getByRole('button', { name: `Re-enrol this computer: ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Re-enrolment code for ${name}` });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("the computer's old token stops working");
    const field = dialog.getByRole('textbox', { name: 'Re-enrolment code' });
    const code = await field.inputValue();
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(await field.evaluate((input) => input === document.activeElement)).toBe(true);
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Close' }).click();
    const redeem = (uuid: string) =>
      shop.instances.two.request('POST', '/printing/enroll', { body: { code, uuid } });
    const elsewhere = await redeem(crypto.randomUUID());
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors.code[0]).toContain('re-enrols another computer');
    const enrolled = await redeem(agent.uuid);
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.data.agent_id).toBe(agent.uuid);
  });

  it('shows the templates page (its flow: console-templates.browser.test.ts)', async () => {
    await nav('Templates').click();
    await page.getByText('No template yet.').waitFor();
    await expectAccessible();
  });

  it('creates a token, shows its secret once, and revokes it', async () => {
    await nav('Tokens').click();
    await page.getByRole('heading', { name: 'New token' }).waitFor();
    await page.getByLabel('Name').fill('Till system');
    await page.getByRole('button', { name: 'Till: create and read print jobs' }).click();
    expect(await page.getByRole('checkbox', { name: 'Send print jobs' }).isChecked()).toBe(true);
    expect(
      await page.getByRole('checkbox', { name: 'See print jobs and agents' }).isChecked(),
    ).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'See customers' }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New token' });
    const field = dialog.getByRole('textbox', { name: 'Token' });
    const secret = await field.inputValue();
    expect(secret).toMatch(/^sd_/);
    // The secret has the keyboard, and a Copy button beside it.
    expect(await field.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Copy Token' }).count()).toBe(1);
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await page.locator('tr[data-token="Till system"]').textContent()).toContain(
      'Printing: Send print jobs, See print jobs and agents',
    );
    // The token works, until revoked here.
    expect((await shop.instances.two.request('GET', '/me', { token: secret })).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke Till system' }).click();
    await expect
      .poll(() => page.locator('tr[data-token="Till system"]').textContent())
      .toContain('Revoked');
    await expect
      .poll(async () => (await shop.instances.two.request('GET', '/me', { token: secret })).status)
      .toBe(401);
  });

  it('shows the webhooks page', async () => {
    await nav('Webhooks').click();
    await page.getByText('No webhook endpoint yet.').waitFor();
    await expectAccessible();
  });

  it('signs out, and the session ends on the other instance too', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'shopdesk_session')!;
    const header = `${cookie.name}=${cookie.value}`;
    expect(
      (await consoleRequest(shop.instances.two, 'GET', '/console/session', { cookie: header }))
        .status,
    ).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to ShopDesk' }).waitFor();
    expect(
      (await consoleRequest(shop.instances.two, 'GET', '/console/session', { cookie: header }))
        .status,
    ).toBe(401);
  });

  it('shows staff no Tokens, Webhooks nor enrolment, and refuses the Tokens page', async () => {
    const staffContext = await chromium.browser.newContext();
    const staffPage = await staffContext.newPage();
    await signInOnPage(staffPage, shop.instances.one.url, staff);
    const links = staffPage.getByRole('navigation', { name: 'Console' }).getByRole('link');
    expect(await links.allTextContents()).toEqual(['Overview', 'Jobs', 'Agents', 'Templates']);
    await staffPage.goto(`${shop.instances.one.url}/console/agents`);
    await staffPage.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    expect(await staffPage.getByRole('button', { name: 'Enrol an agent' }).count()).toBe(0);
    await staffPage.goto(`${shop.instances.one.url}/console/tokens`);
    await staffPage.getByText('You do not have access to this page.').waitFor();
    await staffContext.close();
  });
});

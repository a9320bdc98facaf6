import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from '../printing/helpers.ts';
import { chromiumForFile, consoleCompany } from './helpers.ts';

/**
 * The Overview tells the truth (docs/console.md, "Overview"): what cannot print now, most
 * serious first, in words; "All printers are fine" only when it is so. In a real Chromium,
 * signed in on one instance while the agent and the shop system talk to the other (two
 * PostgreSQL instances of one database; SQLite: the one instance).
 */
const chromium = chromiumForFile();

describe.each(['sqlite', 'postgres'] as const)('the Overview in Chromium, on %s', (dialect) => {
  const shop = consoleCompany(dialect, 'Overview Shop');
  let integrator: string;
  let context: BrowserContext;
  let page: Page;
  let agent: TestAgent;

  beforeAll(async () => {
    const owner = await shop.user('owner');
    integrator = await integratorToken(shop.instances.two, shop.companyId);
    context = await chromium.browser.newContext();
    page = await context.newPage();
    await page.goto(`${shop.instances.one.url}/`);
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 60_000);
  afterAll(() => context?.close());

  const cannotPrint = () => page.getByTestId('cannot-print').locator('li').allTextContents();
  const heartbeat = (printer: Record<string, unknown>) =>
    agent.call('POST', '/printing/heartbeat', {
      printers: [{ name: 'EPSON', is_default: true, ...printer }],
    });

  it('with no agent at all and a job waiting, says the job cannot print, not that all is fine', async () => {
    await createJob(shop.instances.two, integrator, { route: 'receipts', title: 'Receipt 1' });
    await page.goto(`${shop.instances.one.url}/console`);
    await expect
      .poll(cannotPrint)
      .toEqual([
        expect.stringMatching(
          /^1 job waiting on route receipts: no print agent serves route receipts\. \(waiting since .+\) Give this route to a print agent/,
        ),
      ]);
    expect(await page.getByText('All printers are fine.').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('names a printer out of paper with its own message, on the route and as a printer', async () => {
    agent = await registerAgent(shop.instances.two, shop.companyId, ['receipts']);
    expect(
      (
        await heartbeat({
          state: 'stopped',
          reasons: ['paused'],
          accepting_jobs: true,
          message: 'Paper out',
        })
      ).status,
    ).toBe(200);
    await page.reload();
    await expect
      .poll(cannotPrint)
      .toEqual([
        expect.stringMatching(
          /^1 job waiting on route receipts: printer EPSON is out of paper: Paper out\. \(waiting since .+\) Load paper/,
        ),
        expect.stringMatching(
          /^printer EPSON is out of paper: Paper out \(on Till .+\)\. Load paper/,
        ),
      ]);
  });

  it('says it on every page in a banner', async () => {
    await page.goto(`${shop.instances.one.url}/console/jobs`);
    await expect
      .poll(() => page.getByTestId('attention-banner').textContent())
      .toBe(
        'Needs attention: 1 job waiting on route receipts: printer EPSON is out of paper: Paper out (and 1 more). See the Overview',
      );
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('with the agent offline: the route first, then the agent, whose printer reads Unknown', async () => {
    expect((await agent.call('POST', '/printing/offline')).status).toBe(204);
    await page.goto(`${shop.instances.one.url}/console`);
    await expect
      .poll(cannotPrint)
      .toEqual([
        expect.stringMatching(
          /^1 job waiting on route receipts: no print agent serving route receipts is online\. \(waiting since .+\) Start the print agent/,
        ),
        expect.stringMatching(
          /^print agent Till .+ is offline; it serves route receipts\. \(last heard from .+\) Start the print agent on that computer\./,
        ),
      ]);
    expect(await page.getByText('All printers are fine.').count()).toBe(0);
    await page.goto(`${shop.instances.one.url}/console/agents`);
    await expect.poll(() => page.getByRole('cell', { name: 'Unknown' }).count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'Ready' }).count()).toBe(0);
  });

  it("a waiting job's page says why and since when", async () => {
    const job = await createJob(shop.instances.two, integrator, {
      route: 'receipts',
      title: 'Receipt 2',
    });
    await page.goto(`${shop.instances.one.url}/console/jobs/${job.id}`);
    await expect
      .poll(() => page.getByTestId('job-wait-reason').textContent())
      .toBe(
        'no print agent serving route receipts is online. Start the print agent on the computer that serves this route.',
      );
    const since = await page.evaluate((at) => new Date(at).toLocaleString(), job.created_at);
    expect(await page.getByTestId('job-waiting-since').textContent()).toBe(since);
  });

  it('says all printers are fine once the agent is back, its printer ready and nothing waits', async () => {
    expect((await heartbeat({ state: 'idle', reasons: [], accepting_jobs: true })).status).toBe(
      200,
    );
    await page.goto(`${shop.instances.one.url}/console`);
    await expect
      .poll(() => page.getByTestId('all-fine').textContent())
      .toBe('All printers are fine.');
    expect(await page.getByTestId('cannot-print').count()).toBe(0);
    expect(await page.getByTestId('attention-banner').count()).toBe(0);
  });

  it("names a route whose profile its printer cannot print, on the Overview and the agent's page", async () => {
    const office = await registerAgent(shop.instances.two, shop.companyId, []);
    await office.call('POST', '/printing/heartbeat', {
      printers: [
        {
          name: 'PDF_Office',
          state: 'idle',
          reasons: [],
          accepting_jobs: true,
          capabilities: { languages: ['pdf', 'text'] },
        },
      ],
    });
    const put = await office.call('PUT', '/printing/routes', {
      routes: [
        { name: 'office', printer: 'PDF_Office', profile: { language: 'escpos', width_mm: 80 } },
      ],
    });
    expect(put.status).toBe(200);
    const misfit = 'misconfigured: PDF_Office takes PDF, the profile says ESC/POS';
    const job = await createJob(shop.instances.two, integrator, { route: 'office' });
    expect(job.wait_reason).toEqual({ code: 'printer_misconfigured', message: misfit });
    await page.goto(`${shop.instances.one.url}/console`);
    await expect
      .poll(cannotPrint)
      .toEqual([
        expect.stringMatching(new RegExp(`^1 job waiting on route office: ${misfit}\\. `)),
      ]);
    await page.goto(`${shop.instances.one.url}/console/agents`);
    await expect
      .poll(() => page.getByTestId('route-misfit').textContent())
      .toBe(` — ${misfit}. Give the route a profile this printer prints, or another printer.`);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

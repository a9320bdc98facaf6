import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { consoleUser } from '../helpers/console.ts';
import { type Instances, startInstances } from '../helpers/instances.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from '../printing/helpers.ts';
import { chromiumForFile, signInOnPage } from './helpers.ts';

/**
 * Finding and fixing jobs in the console, by the words on the page: search, the filters'
 * choices, a row that opens its job (by mouse and by keyboard), a failed job's page that
 * says what went wrong and what to do, Retry refused where it cannot help, and Retry all
 * failed on a route. The browser is on one instance, the agent and the shop's system on the
 * other (PostgreSQL: two instances of one database).
 */
const chromium = chromiumForFile();

describe.each(['sqlite', 'postgres'] as const)('finding and fixing jobs on %s', (dialect) => {
  let instances: Instances;
  let context: BrowserContext;
  let page: Page;
  let integrator: string;
  let agent: TestAgent;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    const company = await instances.one.createCompany('Find Shop');
    const manager = await consoleUser(instances.one, company, 'manager');
    integrator = await integratorToken(instances.two, company);
    agent = await registerAgent(instances.two, company, ['receipts', 'labels']);
    context = await chromium.browser.newContext();
    page = await context.newPage();
    await signInOnPage(page, instances.one.url, manager);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await instances?.close();
  });

  /** A job on `route` that the agent claims and fails with `code`. */
  const failedJob = async (title: string, code: string, route = 'receipts') => {
    const job = await createJob(instances.two, integrator, { title, route });
    const claimed = await agent.next();
    expect(claimed.body.data.id).toBe(job.id);
    await agent.call('POST', `/printing/jobs/${job.id}/error`, {
      message: 'Paper out',
      code,
    });
    return job;
  };
  const rows = () => page.locator('tr[data-job]');

  it('finds "Order A-1043" by typing it, says how many in words, and titles the tab', async () => {
    const wanted = await createJob(instances.two, integrator, {
      title: 'Order A-1043',
      route: 'counter',
    });
    await createJob(instances.two, integrator, { title: 'Order A-1044', route: 'counter' });
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Jobs' })
      .click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    expect(await page.title()).toBe('Jobs · ShopDesk');
    await page.getByRole('searchbox', { name: 'Search' }).fill('a-1043');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().getAttribute('data-job')).toBe(String(wanted.id));
    expect(await page.locator('caption').textContent()).toContain('1 job shown');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('offers the routes that exist as the Route filter, and filters by one', async () => {
    await page.goto(`${instances.one.url}/console/jobs`);
    const route = page.getByLabel('Route');
    await expect
      .poll(() => route.locator('option').allTextContents())
      .toEqual(['Any', 'counter', 'labels', 'receipts']);
    await route.selectOption('counter');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await page.locator('caption').textContent()).toContain('2 jobs shown');
  });

  it('opens a job from anywhere on its row, and from the keyboard with Enter', async () => {
    const first = rows().first();
    const id = await first.getAttribute('data-job');
    await first.getByRole('cell').nth(1).click();
    await expect.poll(() => page.url()).toContain(`/console/jobs/${id}`);
    await expect.poll(() => page.title()).toBe(`Job ${id} · ShopDesk`);
    await page.goBack();
    await rows().first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain(`/console/jobs/${id}`);
  });

  it("says on a failed job's page which printer, what went wrong and what to do", async () => {
    const job = await failedJob('Receipt 9', 'printer_not_ready');
    await page.goto(`${instances.one.url}/console/jobs/${job.id}`);
    const failure = page.getByTestId('job-failure');
    await failure.waitFor();
    expect(await page.getByTestId('job-printer').textContent()).toBe('EPSON');
    expect(await failure.textContent()).toContain('The printer said it cannot print');
    expect(await failure.textContent()).toContain(
      'EPSON said: “Paper out” (code printer_not_ready)',
    );
    expect(await page.getByTestId('job-advice').textContent()).toBe(
      'What to do: Fix what the message says, then retry.',
    );
    expect(await page.getByRole('button', { name: 'Retry', exact: true }).isEnabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('disables Retry, with the reason, where a retry cannot help', async () => {
    const job = await failedJob('Label 3', 'template_render_failed', 'labels');
    await page.goto(`${instances.one.url}/console/jobs/${job.id}`);
    const retry = page.getByRole('button', { name: 'Retry', exact: true });
    await retry.waitFor();
    expect(await retry.isDisabled()).toBe(true);
    expect(await page.getByTestId('retry-why').textContent()).toContain(
      'Retry cannot help here: Fix the template or the data and send a new job',
    );
    expect(await page.getByRole('button', { name: /^Retry all failed/ }).count()).toBe(0);
  });

  it('retries all failed jobs on a route once fixed, and the list shows them waiting live', async () => {
    await failedJob('Receipt 10', 'printer_unreachable');
    await page.goto(`${instances.one.url}/console/jobs?status=failed&route=receipts`);
    await expect.poll(() => rows().count()).toBe(2);
    await page.getByRole('button', { name: 'Retry all failed on route receipts' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe('2 jobs queued again on route receipts.');
    // The list reads again by itself: no failed job is left on receipts.
    await page.getByText('No job matches this search.').waitFor();
  });
});

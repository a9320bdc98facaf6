import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { type ConsoleUser, consoleUser } from '../helpers/console.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, integratorToken } from '../printing/helpers.ts';
import { chromiumForFile, signInOnPage } from './helpers.ts';

/**
 * The Templates page in a real Chromium, as a shop manager uses it: create a template, watch
 * the preview follow the source and the sample data, save new versions (by keyboard too),
 * read a Liquid error in words with its line and column; then a job made from it shows its
 * rendering on the job's page. Every step under the console's strict CSP, checked by axe.
 * One Chromium for the file (a launch costs seconds of CPU); each database gets its own
 * browser contexts, so nothing of one run is seen by the other.
 */
const chromium = chromiumForFile();

describe.each(databaseKinds)('the Templates page in Chromium, on %s', (dialect) => {
  let server: TestServer;
  let page: Page;
  let manager: ConsoleUser;
  let companyId: number;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServerOn(dialect);
    companyId = await server.createCompany('Template Shop');
    manager = await consoleUser(server, companyId, 'manager');
    page = await chromium.browser.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    await signInOnPage(page, server.url, manager);
  }, 60_000);
  afterAll(async () => {
    await page?.context().close();
    await server?.close();
  });

  const preview = () => page.getByTestId('template-preview').getAttribute('src');
  const problem = () => page.getByTestId('template-problem').textContent();
  const saveStatus = () => page.getByTestId('save-status').textContent();

  it('creates a template and previews it as the source and the sample data change', async () => {
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Templates' })
      .click();
    await page.getByText('No template yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Name').fill('till-receipt');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Template till-receipt' }).waitFor();
    await expect.poll(preview).toMatch(/^data:image\/png;base64,/);
    expect(await seriousViolations(page)).toEqual([]);

    const first = await preview();
    await page.getByLabel('Source').fill('^^{{ shop }}\nHello | {{ order.number }}\n=');
    await expect.poll(preview).not.toBe(first);
    const second = await preview();
    await page
      .getByLabel('Sample data (JSON)')
      .fill(JSON.stringify({ shop: 'Another Shop', order: { number: '7' } }));
    await expect.poll(preview).not.toBe(second);
    expect(await problem()).toBe('');

    await page.getByLabel('Sample data (JSON)').fill('{ "shop": ');
    await expect.poll(problem).toMatch(/sample data is not valid JSON/);
    await page
      .getByLabel('Sample data (JSON)')
      .fill('{ "shop": "Demo", "order": { "number": "9" } }');
    await expect.poll(problem).toBe('');

    // Another printer: a 58 mm roll draws a narrower image.
    const wide = await preview();
    await page.getByLabel('Printer').selectOption({ label: 'Receipt 58 mm, ESC/POS' });
    await expect.poll(preview).not.toBe(wide);
  });

  it('saves a new version, by keyboard', async () => {
    await page.getByLabel('Source').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('template-sample');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('template-schema');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save');
    await page.keyboard.press('Enter');
    await expect.poll(saveStatus).toBe('Saved as version 2.');
    const token = await server.token(companyId, ['printing.templates.read']);
    const list = await server.request('GET', '/printing/templates', { token });
    expect(list.body.data[0]).toMatchObject({ name: 'till-receipt', version: 2 });
    expect(list.body.data[0].source).toContain('Hello | {{ order.number }}');
    expect(list.body.data[0].sample_data).toEqual({ shop: 'Demo', order: { number: '9' } });
  });

  it('shows a Liquid error with its line and column, and does not save it', async () => {
    await page.getByLabel('Source').fill('Hello\n  {{ shop | shout }}');
    await expect.poll(problem).toMatch(/error at line 2, column 3: undefined filter: shout/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(saveStatus).toMatch(/^Not saved\..*line 2, column 3/);
    await page.getByRole('link', { name: 'All templates' }).click();
    const row = page.locator('tr[data-template="till-receipt"]');
    await expect.poll(() => row.textContent()).toContain('Receipt (ReceiptLine)');
    expect(await row.locator('td').nth(2).textContent()).toBe('2');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('edits the data schema and lists the data the template reads, as a job is checked', async () => {
    await page.getByRole('link', { name: 'till-receipt' }).click();
    const variables = page.getByTestId('template-variables').locator('li');
    await expect
      .poll(() => variables.allTextContents())
      .toEqual(['shop (line 1): required', 'order.number (line 2): required']);
    // Sample data without what the template reads: the preview says what is missing.
    await page.getByLabel('Sample data (JSON)').fill('{ "shop": "Demo" }');
    await expect.poll(problem).toMatch(/data\.order\.number field is required/);
    await page
      .getByLabel('Sample data (JSON)')
      .fill('{ "shop": "Demo", "order": { "number": "9" } }');
    await expect.poll(problem).toBe('');

    const schema = { type: 'object', properties: { shop: { type: 'string' } } };
    await page.getByLabel(/^Data schema/).fill(JSON.stringify(schema));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(saveStatus).toBe('Saved as version 3.');
    await expect
      .poll(() => variables.allTextContents())
      .toEqual([
        'shop (line 1): may be left out: the data schema does not require it',
        'order.number (line 2): required',
      ]);
    const token = await server.token(companyId, ['printing.templates.read']);
    const list = await server.request('GET', '/printing/templates', { token });
    expect(list.body.data[0]).toMatchObject({ name: 'till-receipt', data_schema: schema });
    // A schema that is not JSON is said, and nothing is saved.
    await page.getByLabel(/^Data schema/).fill('{ "type": ');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(saveStatus).toBe('Not saved: the data schema is not valid JSON.');
    await page.getByLabel(/^Data schema/).fill(JSON.stringify(schema));
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'All templates' }).click();
    await page.locator('tr[data-template="till-receipt"]').waitFor();
  });

  it('previews a label template as the picture of its ZPL, with a text alternative', async () => {
    await page.getByLabel('Name').fill('shelf-label');
    await page.getByLabel('Kind').selectOption('label');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Template shelf-label' }).waitFor();
    await expect.poll(preview).toMatch(/^data:image\/png;base64,/);
    const image = page.getByRole('img', {
      name: 'Preview of shelf-label on a Label 50 mm, ZPL printer',
    });
    // One pixel a dot: a 50 mm label at 203 dpi is 400 dots wide.
    await expect
      .poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth))
      .toBe(400);
    const first = await preview();
    await page.getByLabel('Sample data (JSON)').fill('{ "name": "Another label" }');
    await expect.poll(preview).not.toBe(first);
    expect(await problem()).toBe('');
    expect(await page.getByLabel('Printer').locator('option').allTextContents()).toEqual([
      'Label 50 mm, ZPL',
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'All templates' }).click();
    await page.locator('tr[data-template="shelf-label"]').waitFor();
  });

  it('shows staff a template read-only, with its preview and no Save', async () => {
    const staff = await consoleUser(server, companyId, 'staff');
    const staffPage = await chromium.browser.newPage();
    await signInOnPage(staffPage, server.url, staff);
    await staffPage
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Templates' })
      .click();
    await staffPage.getByRole('link', { name: 'till-receipt' }).click();
    await expect
      .poll(() => staffPage.getByTestId('template-preview').getAttribute('src'), {
        timeout: 10_000,
      })
      .toMatch(/^data:image\/png;base64,/);
    expect(await staffPage.getByLabel('Source').getAttribute('readonly')).not.toBeNull();
    expect(await staffPage.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await staffPage.getByRole('button', { name: 'Create template' }).count()).toBe(0);
    expect(await seriousViolations(staffPage)).toEqual([]);
    await staffPage.close();
  });

  it("shows a template job's rendering on the job's page, a label's too", async () => {
    const integrator = await integratorToken(server, companyId);
    const job = await createJob(server, integrator, {
      content_type: undefined,
      content_base64: undefined,
      template: 'till-receipt',
      data: { shop: 'Demo', order: { number: '12' } },
    });
    await page.goto(`${server.url}/console/jobs/${job.id}`);
    const rendering = page.getByTestId('job-rendering');
    await expect.poll(() => rendering.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await rendering.getAttribute('alt')).toBe(`Job ${job.id} as printed`);
    // Before an agent claims it, its document is the data it was sent with, shown as text.
    await expect
      .poll(() => page.getByRole('region', { name: 'Document text' }).textContent())
      .toContain('"number":"12"');
    expect(await seriousViolations(page)).toEqual([]);

    // A label's job shows its ZPL drawn too (before a claim: on a 50 mm label at 203 dpi).
    const labelJob = await createJob(server, integrator, {
      content_type: undefined,
      content_base64: undefined,
      template: 'shelf-label',
      data: { name: 'Tea' },
    });
    await page.goto(`${server.url}/console/jobs/${labelJob.id}`);
    const label = page.getByRole('img', { name: `Job ${labelJob.id} as printed` });
    await expect
      .poll(() => label.evaluate((img) => (img as HTMLImageElement).naturalWidth), {
        timeout: 10_000,
      })
      .toBe(400);
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspErrors).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.ts';
import { type ConsoleUser, consoleRequest, consoleUser, signIn } from '../helpers/console.ts';
import { type Instances, startInstances } from '../helpers/instances.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';
import { chromiumForFile, signInOnPage } from './helpers.ts';

/**
 * What a shop manager does on the console's pages instead of the command line, in a real
 * Chromium, by the words on the page: enrolment codes (made in a dialog, listed, revoked),
 * agents renamed and removed, webhook endpoints added to deleted, roles, password resets and
 * one's own password. The page is signed in on one instance; the checks read the other
 * (PostgreSQL: two instances of one database; SQLite: the one instance).
 */
const chromium = chromiumForFile();

/** Host names as the webhooks' resolver sees them: one public address, one private. */
const addresses: Record<string, string> = {
  'hooks.shop.example': '203.0.113.10',
  'intranet.shop.example': '192.168.1.20',
};

describe.each(['sqlite', 'postgres'] as const)(
  'managing the shop on the console, on %s',
  (dialect) => {
    let instances: Instances;
    let companyId: number;
    let owner: ConsoleUser;
    let it_: string;
    let agent: TestAgent;
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      instances = await startInstances(dialect, {
        webhooks: {
          timeoutMs: 500,
          resolve: async (host) => {
            const address = addresses[host];
            if (!address) throw new Error(`no address for ${host}`);
            return [{ address, family: 4 }];
          },
        },
      });
      companyId = await instances.one.createCompany('Manage Shop');
      owner = await consoleUser(instances.one, companyId, 'owner');
      it_ = await instances.two.token(companyId, [
        'printing.agents.write',
        'printing.jobs.read',
        'webhooks.manage',
      ]);
      agent = await registerAgent(instances.two, companyId, ['receipts']);
      context = await chromium.browser.newContext();
      page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await signInOnPage(page, instances.one.url, owner);
    }, 60_000);
    afterAll(async () => {
      await context?.close();
      await instances?.close();
    });

    const nav = (name: string) =>
      page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });
    const focused = (locator: ReturnType<Page['getByRole']>) =>
      locator.evaluate((element) => element === document.activeElement);
    const codes = async () =>
      (await instances.two.request('GET', '/printing/enrollments', { token: it_ })).body
        .data as Array<{ id: number; name: string; routes: string[]; uses: number; state: string }>;

    it('makes an enrolment code in a dialog offering the known routes, shows it with Copy and the command line, and revokes it', async () => {
      await nav('Agents').click();
      await page.getByRole('button', { name: 'Enrol an agent' }).click();
      const form = page.getByRole('dialog', { name: 'Enrol an agent' });
      await form.getByRole('checkbox', { name: 'receipts' }).check();
      await form.getByLabel('Other routes (separated by commas)').fill('labels');
      await form.getByLabel('How many computers it enrols').fill('2');
      await form.getByLabel('Valid for').selectOption('8 hours');
      await form.getByLabel('Agent name (optional)').fill('Front till');
      expect(await seriousViolations(page)).toEqual([]);
      await form.getByRole('button', { name: 'Make the code' }).click();
      const made = page.getByRole('dialog', { name: 'Enrolment code' });
      const field = made.getByRole('textbox', { name: 'Enrolment code' });
      const code = await field.inputValue();
      expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      expect(await focused(field)).toBe(true);
      expect(await made.getByRole('button', { name: 'Copy Enrolment code' }).count()).toBe(1);
      expect(await made.getByRole('textbox', { name: 'Server address' }).inputValue()).toBe(
        instances.one.url,
      );
      expect(await made.getByRole('textbox', { name: 'Command line' }).inputValue()).toBe(
        `shopdesk agent --server ${instances.one.url} --enroll ${code} --name "Front till"`,
      );
      expect(await seriousViolations(page)).toEqual([]);
      const [record] = await codes();
      expect(record).toMatchObject({
        name: 'Front till',
        routes: ['receipts', 'labels'],
        uses: 2,
        state: 'active',
      });
      await made.getByRole('button', { name: 'Close' }).click();
      const row = page.locator(`tr[data-code="${record!.id}"]`);
      await expect.poll(() => row.textContent()).toContain('receipts, labels');
      expect(await row.textContent()).toContain('0 of 2 computers');
      await row.getByRole('button', { name: 'Revoke the code Front till' }).click();
      await expect.poll(async () => (await codes())[0]!.state).toBe('revoked');
      await expect.poll(() => row.count()).toBe(0);
    });

    it('renames an agent, and the name stays when the agent registers again', async () => {
      const name = `Till ${agent.uuid.slice(0, 4)}`;
      const card = page.locator(`section[data-agent="${agent.uuid}"]`);
      expect(await card.getByTestId('agent-id').textContent()).toBe(agent.uuid.slice(0, 8));
      // An agent online cannot be removed: it is stopped first.
      expect(await card.getByRole('button', { name: `Remove ${name}` }).count()).toBe(0);
      await card.getByRole('button', { name: `Rename ${name}` }).click();
      const dialog = page.getByRole('dialog', { name: `Rename ${name}` });
      await dialog.getByLabel('New name').fill('Front till');
      await dialog.getByRole('button', { name: 'Save the name' }).click();
      await page.getByRole('heading', { name: /^Front till/, level: 2 }).waitFor();
      const again = await agent.call('POST', '/printing/register', {
        uuid: agent.uuid,
        name,
        hostname: 'till-1',
        platform: 'linux',
        version: '0.1.0',
        printers: [{ name: 'EPSON', is_default: true }],
      });
      expect(again.status).toBe(200);
      const read = await instances.two.request('GET', `/printing/agents/${agent.uuid}`, {
        token: it_,
      });
      expect(read.body.data.name).toBe('Front till');
    });

    it('removes an offline agent after a confirmation, and its token stops working', async () => {
      const enrolled = await instances.two.request('POST', '/printing/enrollments', {
        token: it_,
        body: { routes: ['receipts'] },
      });
      const uuid = randomUUID();
      const redeemed = await instances.two.request('POST', '/printing/enroll', {
        body: { code: enrolled.body.data.code, uuid, routes: ['receipts'] },
      });
      const token = redeemed.body.data.token as string;
      const bound = await registerAgentAs(uuid, token);
      expect((await bound('POST', '/printing/offline')).status).toBe(204);
      const card = page.locator(`section[data-agent="${uuid}"]`);
      await expect.poll(() => card.getByTestId('agent-presence').textContent()).toBe('Offline');
      await card.getByRole('button', { name: 'Remove Old till' }).click();
      await expect.poll(() => card.count()).toBe(0);
      await expect.poll(async () => (await bound('POST', '/printing/heartbeat')).status).toBe(401);
      const read = await instances.two.request('GET', `/printing/agents/${uuid}`, { token: it_ });
      expect(read.status).toBe(404);
    });

    it('lists a removed agent again, under its id, when it comes back with a company-wide token', async () => {
      const shared = await registerAgent(instances.two, companyId, []);
      const name = `Till ${shared.uuid.slice(0, 4)}`;
      expect((await shared.call('POST', '/printing/offline')).status).toBe(204);
      const card = page.locator(`section[data-agent="${shared.uuid}"]`);
      await card.getByRole('button', { name: `Remove ${name}` }).click();
      await expect.poll(() => card.count()).toBe(0);
      const again = await shared.call('POST', '/printing/register', {
        uuid: shared.uuid,
        name,
        hostname: 'till-1',
        platform: 'linux',
        version: '0.1.0',
        printers: [{ name: 'EPSON', is_default: true }],
      });
      expect(again.status).toBe(200);
      // Both instances know it as the same agent: its heartbeat and its routes work on either.
      for (const server of [instances.one, instances.two]) {
        const beat = await server.request('POST', '/printing/heartbeat', {
          token: shared.token,
          headers: { 'x-agent-id': shared.uuid },
          body: { held_job_ids: [] },
        });
        expect(beat.status).toBe(200);
      }
      await card.getByTestId('agent-presence').waitFor();
    });

    async function registerAgentAs(uuid: string, token: string) {
      const call = (method: string, path: string, body?: unknown) =>
        instances.two.request(method, path, { token, body, headers: { 'x-agent-id': uuid } });
      const registered = await call('POST', '/printing/register', {
        uuid,
        name: 'Old till',
        hostname: 'old-till',
        platform: 'linux',
        version: '0.1.0',
        printers: [{ name: 'EPSON', is_default: true }],
      });
      expect(registered.status).toBe(201);
      return call;
    }

    it('adds a webhook endpoint (a private address refused in words), edits, tests, disables and deletes it', async () => {
      const endpoints = async () =>
        (await instances.two.request('GET', '/webhooks', { token: it_ })).body.data as Array<{
          url: string;
          events: string[];
          enabled: boolean;
        }>;
      await nav('Webhooks').click();
      await page.getByText('No webhook endpoint yet.').waitFor();
      await page.getByRole('button', { name: 'Add an endpoint' }).click();
      const add = page.getByRole('dialog', { name: 'Add an endpoint' });
      await add.getByLabel('Address (URL)').fill('https://intranet.shop.example/events');
      await add.getByRole('checkbox', { name: 'A print job is printed' }).check();
      await add.getByRole('button', { name: 'Add the endpoint' }).click();
      await expect
        .poll(() => add.getByRole('alert').textContent())
        .toMatch(
          /^This address cannot receive webhooks\. The url field points to a private address .*public addresses only\. Use an https:\/\/ address/,
        );
      await add.getByLabel('Address (URL)').fill('https://hooks.shop.example/events');
      await add.getByRole('button', { name: 'Add the endpoint' }).click();
      const secret = page.getByRole('dialog', { name: /^Signing secret of / });
      const field = secret.getByRole('textbox', { name: 'Signing secret' });
      expect(await field.inputValue()).toMatch(/^whsec_/);
      expect(await focused(field)).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await secret.getByRole('button', { name: 'Close' }).click();
      expect(await endpoints()).toMatchObject([
        { url: 'https://hooks.shop.example/events', events: ['print_job.printed'], enabled: true },
      ]);
      const url = 'https://hooks.shop.example/events';
      await page.getByRole('button', { name: `Edit ${url}` }).click();
      const edit = page.getByRole('dialog', { name: `Edit ${url}` });
      await edit.getByRole('checkbox', { name: 'All events, including those added later' }).check();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('sends all events').waitFor();
      expect((await endpoints())[0]!.events).toEqual(['*']);
      await page.getByRole('button', { name: `Send test event to ${url}` }).click();
      await page.locator('tr', { hasText: 'webhook.test' }).waitFor();
      await page.getByRole('button', { name: `Disable ${url}` }).click();
      await expect.poll(async () => (await endpoints())[0]!.enabled).toBe(false);
      await page.getByRole('button', { name: `Enable ${url}` }).waitFor();
      await page.getByRole('button', { name: `Delete ${url}` }).click();
      await expect.poll(async () => (await endpoints()).length).toBe(0);
      await page.getByText('No webhook endpoint yet.').waitFor();
    });

    it("changes someone's role, and resets their password with a one-time link", async () => {
      const staff = await consoleUser(instances.one, companyId, 'staff');
      await nav('Users').click();
      await page.getByLabel(`Role of ${staff.email}`).selectOption('manager');
      await page
        .getByRole('status')
        .filter({ hasText: `${staff.email} is now manager.` })
        .waitFor();
      const cookie = await signIn(instances.two, owner);
      const users = await consoleRequest(instances.two, 'GET', '/console/users', { cookie });
      expect(
        users.body.data.find((user: { email: string }) => user.email === staff.email).role,
      ).toBe('manager');
      await page.getByRole('button', { name: `Reset password of ${staff.email}` }).click();
      const dialog = page.getByRole('dialog', { name: `Password reset for ${staff.email}` });
      const field = dialog.getByRole('textbox', { name: 'One-time link' });
      const link = await field.inputValue();
      expect(link).toMatch(/\/console\/set-password#code=/);
      expect(await focused(field)).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Close' }).click();
      const old = await consoleRequest(instances.two, 'POST', '/console/session', {
        body: { email: staff.email, password: staff.password },
      });
      expect(old.status).toBe(401);
      const other = await context.browser()!.newContext();
      const setter = await other.newPage();
      await setter.goto(link);
      await setter.getByLabel('Password (at least 10 characters)').fill('a brand new passphrase');
      await setter.getByLabel('Password again').fill('a brand new passphrase');
      await setter.getByRole('button', { name: 'Set password' }).click();
      await setter.getByText('Your password is set.').waitFor();
      await other.close();
      await signIn(instances.two, { email: staff.email, password: 'a brand new passphrase' });
    });

    it('changes one’s own password on the Account page, signs out, and signs in with the new one', async () => {
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Current password').fill('not my password');
      await page.getByLabel('New password (at least 10 characters)').fill('owner new passphrase');
      await page.getByLabel('New password again').fill('owner new passphrase');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('status').filter({ hasText: 'The password is incorrect.' }).waitFor();
      await page.getByLabel('Current password').fill(owner.password);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('heading', { name: 'Sign in to ShopDesk' }).waitFor();
      await page.getByLabel('E-mail').fill(owner.email);
      await page.getByLabel('Password').fill('owner new passphrase');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    });
  },
);

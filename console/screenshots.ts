/**
 * Takes the screenshots of docs/console.md from the running console, so that they show
 * what the pages are: `npx tsx console/screenshots.ts` (Chromium at /usr/bin/chromium).
 * A server on a temporary SQLite file, one company with an agent, jobs in every state, the
 * shop receipt template of docs/templates/ and a console owner; one PNG a page into docs/console/.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { startApp } from '../server/app.ts';
import { createCompany } from '../server/companies/create-company.ts';
import { defaultServerConfig } from '../server/config.ts';
import { createUser } from '../server/console/create-user.ts';
import { setPassword } from '../server/console/set-password.ts';
import { createToken } from '../server/tokens/create-token.ts';
import { launchChromium } from '../test/helpers/chromium.ts';
import { buildConsole } from './build.ts';

const out = fileURLToPath(new URL('../docs/console/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shopdesk-shots-'));
await buildConsole();
const app = await startApp(
  {
    ...defaultServerConfig,
    port: 0,
    database: { kind: 'sqlite', file: join(dir, 'shots.sqlite') },
    rateLimitPerMinute: 0,
    logLevel: 'silent',
    secretKey: randomBytes(32).toString('base64'),
  },
  { log: pino({ level: 'silent' }) },
);
try {
  const db = app.services.storage.db;
  const company = await createCompany(db, 'Corner Bakery');
  const { user } = await createUser(db, {
    companyId: company,
    email: 'ana@bakery.example',
    role: 'owner',
  });
  await setPassword(app.services.storage, db, user.id, 'screenshot password');
  const token = (
    await createToken(db, {
      companyId: company,
      permissions: ['printing.jobs.create', 'printing.jobs.read'],
      name: 'till system',
    })
  ).secret;
  const agentToken = (
    await createToken(db, {
      companyId: company,
      permissions: ['printing.agent'],
      name: 'front till',
    })
  ).secret;
  const templatesToken = (
    await createToken(db, {
      companyId: company,
      permissions: ['printing.templates.write'],
      name: 'templates',
    })
  ).secret;
  const api = `${app.url}/api/v1`;
  const uuid = '3f1c2b9a-5d4e-4a7b-9c1d-2e3f4a5b6c7d';
  const call = (method: string, path: string, body: unknown, bearer = agentToken) =>
    fetch(`${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        'content-type': 'application/json',
        'x-agent-id': uuid,
      },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  await call('POST', '/printing/register', {
    uuid,
    name: 'Front till',
    hostname: 'till-front',
    platform: 'win32',
    version: '0.1.0',
    printers: [
      { name: 'EPSON TM-T20', is_default: true, state: 'idle' },
      { name: 'Zebra labels', state: 'stopped', reasons: ['media-empty-error'] },
    ],
  });
  await call('PUT', '/printing/routes', {
    routes: [
      { name: 'receipts', printer: 'EPSON TM-T20' },
      { name: 'labels', printer: 'Zebra labels' },
    ],
  });
  const text = Buffer.from('CORNER BAKERY\n2 x Croissant   5.00\nTotal          5.00\n').toString(
    'base64',
  );
  for (let i = 1; i <= 6; i++) {
    const job = await call(
      'POST',
      '/printing/jobs',
      {
        route: i % 3 === 0 ? 'labels' : 'receipts',
        title: `Receipt ${1040 + i}`,
        content_type: 'text/plain',
        content_base64: text,
      },
      token,
    );
    if (i <= 4) {
      await call('POST', '/printing/jobs/next', { wait: 0 });
      if (i === 3)
        await call('POST', `/printing/jobs/${job.data.id}/error`, {
          message: 'The printer is out of paper.',
          code: 'printer_not_ready',
        });
      else await call('POST', `/printing/jobs/${job.data.id}/confirm`, { printer: 'EPSON TM-T20' });
    }
  }
  const example = (name: string) =>
    readFileSync(fileURLToPath(new URL(`../docs/templates/${name}`, import.meta.url)), 'utf8');
  const template = await call(
    'POST',
    '/printing/templates',
    {
      name: 'shop-receipt',
      kind: 'receipt',
      source: example('shop-receipt.liquid'),
      sample_data: JSON.parse(example('shop-receipt.json')),
    },
    templatesToken,
  );
  mkdirSync(out, { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    await page.goto(`${app.url}/console/`);
    await page.screenshot({ path: join(out, 'sign-in.png') });
    await page.getByLabel('E-mail').fill('ana@bakery.example');
    await page.getByLabel('Password').fill('screenshot password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Zebra labels').first().waitFor();
    await page.screenshot({ path: join(out, 'overview.png') });
    for (const [link, file, ready] of [
      ['Jobs', 'jobs.png', 'tr[data-job]'],
      ['Agents', 'agents.png', '[data-agent]'],
      ['Tokens', 'tokens.png', 'tr[data-token]'],
    ] as const) {
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: link })
        .click();
      await page.locator(ready).first().waitFor();
      await page.screenshot({ path: join(out, file) });
    }
    await page.goto(`${app.url}/console/jobs/3`);
    await page.getByRole('heading', { name: 'What went wrong' }).waitFor();
    await page.screenshot({ path: join(out, 'job.png'), fullPage: true });
    await page.goto(`${app.url}/console/templates/${template.data.id}`);
    await page.getByTestId('template-preview').waitFor();
    await page.screenshot({ path: join(out, 'templates.png'), fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(`screenshots in ${out}`);
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

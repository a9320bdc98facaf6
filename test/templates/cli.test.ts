import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitmapToPng } from '../../server/templates/render/png.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { shopdesk } from '../helpers/shopdesk-cli.ts';
import { receiptData, receiptSource } from './helpers.ts';

/** `shopdesk template create` and `template preview`, on the server's database. */
describe('shopdesk template', () => {
  let server: TestServer;
  let company: number;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany();
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-cli-templates-'));
    writeFileSync(join(dir, 'receipt.liquid'), receiptSource);
    writeFileSync(join(dir, 'sample.json'), JSON.stringify(receiptData));
    writeFileSync(join(dir, 'bad.liquid'), 'Hello\n{{ name | shout }}');
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const db = () => ['--db', server.dbFile, '--company', String(company)];

  it('saves a logo with --asset and prints it with {% image %}', async () => {
    const logo = join(dir, 'logo.png');
    writeFileSync(logo, bitmapToPng({ width: 200, height: 40, pixels: new Uint8Array(8000) }));
    writeFileSync(join(dir, 'logo.liquid'), '{% image "logo" %}\nDemo Shop');
    const created = await shopdesk(
      'template',
      'create',
      ...db(),
      '--name',
      'with-logo',
      '--kind',
      'receipt',
      '--file',
      join(dir, 'logo.liquid'),
      '--asset',
      `logo=${logo}`,
    );
    expect(created.code).toBe(0);
    const out = join(dir, 'logo.escpos');
    const raw = await shopdesk(
      'template',
      'preview',
      ...db(),
      '--name',
      'with-logo',
      '--format',
      'raw',
      '--data',
      join(dir, 'sample.json'),
      '--out',
      out,
    );
    expect(raw.code).toBe(0);
    const bytes = readFileSync(out);
    const at = bytes.indexOf('\x1dv0\x00', 0, 'latin1');
    expect(at).toBeGreaterThanOrEqual(0);
    expect([bytes.readUInt16LE(at + 4), bytes.readUInt16LE(at + 6)]).toEqual([25, 40]);
  });

  it('creates a template and previews it as PNG and as StarPRNT bytes', async () => {
    const created = await shopdesk(
      'template',
      'create',
      ...db(),
      '--name',
      'receipt',
      '--kind',
      'receipt',
      '--file',
      join(dir, 'receipt.liquid'),
      '--sample',
      join(dir, 'sample.json'),
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^\d+\n$/);
    const png = join(dir, 'receipt.png');
    const preview = await shopdesk(
      'template',
      'preview',
      ...db(),
      '--name',
      'receipt',
      '--format',
      'png',
      '--out',
      png,
    );
    expect(preview.code).toBe(0);
    expect(readFileSync(png).readUInt32BE(16)).toBe(576);
    const star = join(dir, 'receipt.star');
    const raw = await shopdesk(
      'template',
      'preview',
      ...db(),
      '--name',
      'receipt',
      '--format',
      'raw',
      '--profile',
      '{"language":"starprnt","width_mm":58}',
      '--data',
      join(dir, 'sample.json'),
      '--out',
      star,
    );
    expect(raw.code).toBe(0);
    expect(raw.stdout).toContain('application/vnd.star.starprnt');
    expect(readFileSync(star).toString('latin1')).toContain('Croissant');
  });

  it('refuses a template with a Liquid error, naming its line and column', async () => {
    const refused = await shopdesk(
      'template',
      'create',
      ...db(),
      '--name',
      'bad',
      '--kind',
      'receipt',
      '--file',
      join(dir, 'bad.liquid'),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('line 2, column 1');
  });
});

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

  /** `shopdesk template <command>` for the template `name` of the test's company. */
  const template = (command: string, name: string, ...more: string[]) =>
    shopdesk(
      'template',
      command,
      '--db',
      server.dbFile,
      '--company',
      String(company),
      '--name',
      name,
      ...more,
    );
  /** `template create` of a receipt template `name` from the file `file` of the test's folder. */
  const create = (name: string, file: string, ...more: string[]) =>
    template('create', name, '--kind', 'receipt', '--file', join(dir, file), ...more);
  /** `template preview` of `name` in `format`, written to `out`. */
  const preview = (name: string, format: string, out: string, ...more: string[]) =>
    template('preview', name, '--format', format, '--out', out, ...more);

  it('saves a logo with --asset and prints it with {% image %}', async () => {
    const logo = join(dir, 'logo.png');
    writeFileSync(logo, bitmapToPng({ width: 200, height: 40, pixels: new Uint8Array(8000) }));
    writeFileSync(join(dir, 'logo.liquid'), '{% image "logo" %}\nDemo Shop');
    const created = await create('with-logo', 'logo.liquid', '--asset', `logo=${logo}`);
    expect(created.code).toBe(0);
    const out = join(dir, 'logo.escpos');
    const raw = await preview('with-logo', 'raw', out, '--data', join(dir, 'sample.json'));
    expect(raw.code).toBe(0);
    const bytes = readFileSync(out);
    const at = bytes.indexOf('\x1dv0\x00', 0, 'latin1');
    expect(at).toBeGreaterThanOrEqual(0);
    expect([bytes.readUInt16LE(at + 4), bytes.readUInt16LE(at + 6)]).toEqual([25, 40]);
  });

  it('creates a template and previews it as PNG and as StarPRNT bytes', async () => {
    const created = await create('receipt', 'receipt.liquid', '--sample', join(dir, 'sample.json'));
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^\d+\n$/);
    const png = join(dir, 'receipt.png');
    const image = await preview('receipt', 'png', png);
    expect(image.code).toBe(0);
    expect(readFileSync(png).readUInt32BE(16)).toBe(576);
    const star = join(dir, 'receipt.star');
    const profile = '{"language":"starprnt","width_mm":58}';
    const data = join(dir, 'sample.json');
    const raw = await preview('receipt', 'raw', star, '--profile', profile, '--data', data);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toContain('application/vnd.star.starprnt');
    expect(readFileSync(star).toString('latin1')).toContain('Croissant');
  });

  it('refuses a template with a Liquid error, naming its line and column', async () => {
    const refused = await create('bad', 'bad.liquid');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('line 2, column 1');
  });
});

import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitmapToPng } from '../../server/templates/render/png.ts';
import { databaseKinds } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';
import { createTemplate, fetchBytes, startTemplateShop } from './helpers.ts';
import { darkIn, greyOf } from './png-pixels.ts';

/** A black logo of `width` × 80 px, as a PNG in base64. */
const blackPng = (width: number) =>
  bitmapToPng({ width, height: 80, pixels: new Uint8Array(width * 80) }).toString('base64');

/** The same as a JPEG. */
const blackJpeg = (width: number) =>
  jpeg
    .encode({ width, height: 80, data: Buffer.alloc(width * 80 * 4) }, 90)
    .data.toString('base64');

const logoSource = '{% image "logo" %}\nDemo Shop\n=';

/** The `GS v 0` rasters of ESC/POS bytes: their width in bytes and rows. */
function rasterSizes(bytes: Buffer): { rowBytes: number; height: number }[] {
  const sizes: { rowBytes: number; height: number }[] = [];
  for (let at = bytes.indexOf('\x1dv0', 0, 'latin1'); at >= 0; ) {
    const rowBytes = bytes.readUInt16LE(at + 4);
    const height = bytes.readUInt16LE(at + 6);
    sizes.push({ rowBytes, height });
    at = bytes.indexOf('\x1dv0', at + 8 + rowBytes * height, 'latin1');
  }
  return sizes;
}

describe.each(databaseKinds)("a template's image assets on %s", (kind) => {
  let server: TestServer;
  let token: string;
  let agent: TestAgent;
  beforeAll(async () => {
    const shop = await startTemplateShop(kind, 'Logo shop');
    ({ server, token } = shop);
    agent = await registerAgent(server, shop.company, []);
    const put = await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'till', printer: 'EPSON', profile: { language: 'escpos', width_mm: 80 } }],
    });
    expect(put.status).toBe(200);
  });
  afterAll(() => server.close());

  it('are saved with the version, read back, kept by an update that names none, and printed', async () => {
    const logo = blackPng(300);
    const template = await createTemplate(server, token, {
      name: 'with-logo',
      source: logoSource,
      assets: { logo },
    });
    expect(template.assets).toEqual({ logo });
    const read = await server.request('GET', `/printing/templates/${template.id}`, { token });
    expect(read.body.data.assets).toEqual({ logo });

    // An update without assets keeps them; one with assets replaces the whole set.
    const renamed = await server.request('PATCH', `/printing/templates/${template.id}`, {
      token,
      body: { source: `${logoSource}\nThank you` },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.assets).toEqual({ logo });
    const wider = blackJpeg(500);
    const replaced = await server.request('PATCH', `/printing/templates/${template.id}`, {
      token,
      body: { assets: { logo: wider } },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.version).toBe(3);
    expect(replaced.body.data.assets).toEqual({ logo: wider });
    const first = await server.request('GET', `/printing/templates/${template.id}/versions/1`, {
      token,
    });
    expect(first.body.data.assets).toEqual({ logo });

    // A job prints its version's logo: version 3's JPEG, 500 px, which fits the 576-dot
    // roll at one pixel a dot.
    const job = await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'till', template: 'with-logo', data: {} },
    });
    expect(job.status).toBe(201);
    const claimed = await agent.next();
    expect(claimed.status).toBe(200);
    const bytes = Buffer.from(claimed.body.data.document.content_base64, 'base64');
    expect(rasterSizes(bytes)).toEqual([{ rowBytes: Math.ceil(500 / 8), height: 80 }]);

    // The first version's preview draws its own logo, 300 dots of black.
    const preview = await fetchBytes(
      server,
      'POST',
      `/printing/templates/${template.id}/preview`,
      token,
      {
        version: 1,
        data: {},
        format: 'png',
      },
    );
    expect(preview.status).toBe(200);
    const picture = greyOf(preview.bytes);
    expect(darkIn(picture, 0, 0, picture.width, 80)).toBe(300 * 80);
  });

  it('an asset that is not a PNG or JPEG, or is broken, is a 422 naming it', async () => {
    const broken = blackPng(300).slice(0, 80);
    const cases: [Record<string, string>, RegExp][] = [
      [{ logo: 'R0lGODlhAQABAAAAACw=' }, /The image logo is not a PNG or JPEG/],
      [{ logo: broken }, /The image logo could not be decoded/],
    ];
    for (const [assets, said] of cases) {
      const answer = await server.request('POST', '/printing/templates', {
        token,
        body: { name: 'bad-logo', kind: 'receipt', source: logoSource, assets },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors['assets.logo'][0]).toMatch(said);
    }
    const huge = Buffer.from(blackPng(10), 'base64');
    huge.writeUInt32BE(5000, 16);
    huge.writeUInt32BE(5000, 20);
    const tooMany = await server.request('POST', '/printing/templates', {
      token,
      body: {
        name: 'bad-logo',
        kind: 'receipt',
        source: logoSource,
        assets: { logo: huge.toString('base64') },
      },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors['assets.logo'][0]).toMatch(/more than 4 megapixels \(5000 × 5000\)/);
  });

  it('a source naming an asset the template does not have is a 422 on source', async () => {
    const answer = await server.request('POST', '/printing/templates', {
      token,
      body: { name: 'no-logo', kind: 'receipt', source: logoSource },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.source[0]).toMatch(/no image asset named "logo"/);
  });
});

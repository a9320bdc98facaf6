import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStateDir } from '../agent/helpers/state-dir.ts';
import { addPdfQueue, addRawQueue, cupsPdfOutDir, newPdfs, pdfsIn } from '../helpers/cups.ts';
import type { RealAgentTestServer } from '../helpers/real-agent-server.ts';
import { pdfImages, pdfText } from '../helpers/system-programs.ts';
import { waitFor } from '../helpers/wait.ts';
import { testAgentRuntime } from './helpers/agent-runtime.ts';
import { closeCupsAndServer, startCupsAndServer } from './helpers/cups-server.ts';
import { type RawPrinter, startRawPrinter } from './helpers/raw-printer.ts';

/**
 * A job sent as data, printed through real CUPS by the real agent: on a raw queue whose
 * socket listener (a port of the test's own) stands for an 80 mm ESC/POS printer, the
 * listener receives exactly the bytes the server rendered for that route's profile; on a
 * cups-pdf queue with a `pdf` profile, the PDF holds the order's lines. Lines in scripts
 * (Japanese, Arabic) are drawn as pictures in the PDF too, each an image as wide as the
 * page's lines, with their text over them, which pdftotext reads after the trip through CUPS.
 */
const suffix = randomBytes(3).toString('hex');
const rawQueue = `shopdesk-tpl-escpos-${suffix}`;
const pdfQueue = `shopdesk-tpl-pdf-${suffix}`;

let printer: RawPrinter;
let server: RealAgentTestServer;

beforeAll(async () => {
  server = await startCupsAndServer(async () => {
    printer = await startRawPrinter();
    await addRawQueue(rawQueue, printer.port);
    await addPdfQueue(pdfQueue);
  });
});

afterAll(async () => {
  await closeCupsAndServer(server, [rawQueue, pdfQueue]);
  printer?.server.close();
});

/** The API as the token `secret` calls it. */
const caller = (secret: string) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
};

/** A caller with a token that keeps templates and prints, and a receipt template it made. */
async function withReceiptTemplate(name: string, source: string) {
  const { secret } = await server.issueToken([
    'printing.templates.write',
    'printing.jobs.create',
    'printing.jobs.read',
  ]);
  const call = caller(secret);
  const template = await call('POST', '/printing/templates', { name, kind: 'receipt', source });
  expect(template.status).toBe(201);
  return call;
}

/** The PDF cups-pdf writes for a job titled `title`, read and removed. */
async function newPdf(outDir: string, before: Set<string>, title: string): Promise<Buffer> {
  const created = await newPdfs(outDir, before, title);
  const pdf = await readFile(join(outDir, created[0]!));
  await rm(join(outDir, created[0]!));
  return pdf;
}

describe('template jobs through the agent and real CUPS', () => {
  it('prints the rendered ESC/POS byte for byte, and a PDF holding the order lines', async () => {
    const call = await withReceiptTemplate(
      'till',
      '^^Demo Shop\nOrder | {{ number }}\n{% for line in lines %}{{ line.name }} | {{ line.price | money }}\n{% endfor %}=',
    );

    const state = await makeStateDir();
    const runtime = testAgentRuntime(server, state.dir, [
      { name: 'till', printer: rawQueue, profile: { language: 'escpos', width_mm: 80 } },
      { name: 'office', printer: pdfQueue, profile: { language: 'pdf', width_mm: 'a4' } },
    ]);
    const outDir = cupsPdfOutDir();
    const before = await pdfsIn(outDir);
    const title = `Delivery_${suffix}`;
    const data = {
      number: `A-${suffix}`,
      lines: [
        { name: 'Espresso beans', price: 12.9 },
        { name: 'Oat milk', price: 2.2 },
      ],
    };
    try {
      const jobs: number[] = [];
      for (const route of ['till', 'office']) {
        const created = await call('POST', '/printing/jobs', {
          route,
          title,
          template: 'till',
          data,
        });
        expect(created.status).toBe(201);
        jobs.push(JSON.parse(created.bytes.toString()).data.id);
      }
      await runtime.start();
      for (const id of jobs) {
        await waitFor(
          `job ${id} printed`,
          async () => (await server.job(id)).status === 'printed',
          40_000,
        );
      }
      const rendered = await call('GET', `/printing/jobs/${jobs[0]}/preview?format=raw`);
      expect(rendered.bytes.subarray(0, 2).toString('latin1')).toBe('\x1b@');
      await waitFor('the ESC/POS bytes at the printer', async () =>
        printer.received.some((bytes) => bytes.equals(rendered.bytes)),
      );

      const text = await pdfText(await newPdf(outDir, before, title));
      expect(text).toContain(`A-${suffix}`);
      expect(text).toMatch(/Espresso beans\s+12\.90/);
      expect(text).toMatch(/Oat milk\s+2\.20/);
    } finally {
      await runtime.stop();
      await state.cleanup();
    }
  }, 90_000);

  it('prints Japanese and Arabic lines in a PDF as pictures that carry their text', async () => {
    const call = await withReceiptTemplate(
      'thanks',
      'Demo Shop\nOrder | {{ number }}\n{{ japanese }}\n{{ arabic }}\nTotal | 3.00\n=',
    );
    const state = await makeStateDir();
    const runtime = testAgentRuntime(server, state.dir, [
      { name: 'office', printer: pdfQueue, profile: { language: 'pdf', width_mm: 'a4' } },
    ]);
    const outDir = cupsPdfOutDir();
    const before = await pdfsIn(outDir);
    const title = `Thanks_${suffix}`;
    try {
      const created = await call('POST', '/printing/jobs', {
        route: 'office',
        title,
        template: 'thanks',
        data: {
          number: `J-${suffix}`,
          japanese: 'ありがとうございました',
          arabic: 'شكرا لزيارتكم',
        },
      });
      expect(created.status).toBe(201);
      const id = JSON.parse(created.bytes.toString()).data.id;
      await runtime.start();
      // Its first CJK and Arabic lines load their fonts on the render thread, then cups-pdf
      // converts: under a CI run's load that passed 10 s once; this tests what prints, not when.
      await waitFor(
        `job ${id} printed`,
        async () => (await server.job(id)).status === 'printed',
        45_000,
      );
      const pdf = await newPdf(outDir, before, title);
      const text = await pdfText(pdf);
      expect(text).toMatch(/Order\s+J-/);
      expect(text).toMatch(/Total\s+3\.00/);
      // Readers may space the characters out; what matters is their order.
      const letters = text.replace(/[\s\u200e\u200f\u202a-\u202e]/g, '');
      expect(letters).toContain('ありがとうございました');
      expect(letters).toContain('شكرالزيارتكم');
      // A4 holds 64 columns of 12 dots: each drawn line is 768 dots wide, one row of 34.
      expect((await pdfImages(pdf)).map(({ width, height }) => `${width}x${height}`)).toEqual([
        '768x34',
        '768x34',
      ]);
    } finally {
      await runtime.stop();
      await state.cleanup();
    }
  }, 90_000);
});

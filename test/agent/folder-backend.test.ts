import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderBackend, folderFileName, folderStatus } from '../../agent/core/printers/folder.ts';
import { PrinterBackendByName } from '../../agent/core/printers/index.ts';
import { HeldPrinterBackend, readyPrinter } from './helpers/fake-backend.ts';
import { makeStateDir } from './helpers/state-dir.ts';

let out: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  out = await makeStateDir();
});
afterEach(async () => {
  await out.cleanup();
});

describe('folder back-end', () => {
  it('writes each job as <id>-<safe title>.<ext>, byte for byte', async () => {
    const backend = new FolderBackend();
    const zpl = Buffer.from([0x5e, 0x58, 0x41, 0x00, 0xff, 0x5e, 0x58, 0x5a]);
    const outcome = await backend.print(
      {
        id: 31,
        title: 'Shelf label: café/crème',
        content_type: 'application/vnd.zebra.zpl',
        copies: 1,
      },
      zpl,
      `folder:${out.dir}`,
      {},
    );
    expect(outcome).toEqual({ ok: true, printer: `folder:${out.dir}`, spoolerJobId: null });
    expect(await readdir(out.dir)).toEqual(['31-Shelf_label_cafe_creme.zpl']);
    expect((await readFile(join(out.dir, '31-Shelf_label_cafe_creme.zpl'))).equals(zpl)).toBe(true);
  });

  it.each([
    ['../../etc/passwd', 'application/pdf', '5-etc_passwd.pdf'],
    ['$(touch pwned)', 'text/plain', '5-touch_pwned.txt'],
    [null, 'application/vnd.escpos', '5.escpos'],
    ['...', 'application/pdf', '5.pdf'],
  ] as const)('names a job titled %s inside the folder', (title, contentType, expected) => {
    expect(folderFileName({ id: 5, title, content_type: contentType, copies: 1 })).toBe(expected);
  });

  it('creates the folder when missing', async () => {
    const dir = join(out.dir, 'nested', 'labels');
    const outcome = await new FolderBackend().print(
      { id: 1, title: 'x', content_type: 'text/plain', copies: 1 },
      Buffer.from('hello'),
      `folder:${dir}`,
      {},
    );
    expect(outcome.ok).toBe(true);
    expect(await readdir(dir)).toEqual(['1-x.txt']);
  });

  it('fails with write_failed when the folder cannot be written', async () => {
    // A file where the folder should be.
    const blocker = join(out.dir, 'blocker');
    await new FolderBackend().print(
      { id: 1, title: null, content_type: 'text/plain', copies: 1 },
      Buffer.from('x'),
      `folder:${out.dir}`,
      {},
    );
    const { rename } = await import('node:fs/promises');
    await rename(join(out.dir, '1.txt'), blocker);
    const outcome = await new FolderBackend().print(
      { id: 2, title: null, content_type: 'text/plain', copies: 1 },
      Buffer.from('x'),
      `folder:${blocker}`,
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'write_failed' });
  });

  it('sends folder: printers to the folder back-end and other names to the system spooler', async () => {
    const system = new HeldPrinterBackend();
    const backend = new PrinterBackendByName(system);
    await backend.print(
      { id: 1, title: null, content_type: 'text/plain', copies: 1 },
      Buffer.from('a'),
      `folder:${out.dir}`,
      {},
    );
    await backend.print(
      { id: 2, title: null, content_type: 'text/plain', copies: 1 },
      Buffer.from('b'),
      'Zebra',
      {},
    );
    expect(await readdir(out.dir)).toEqual(['1.txt']);
    expect(system.prints.map((print) => print.printer)).toEqual(['Zebra']);
  });

  it('lists the system printers, then the folder printers the routes use, with their state', async () => {
    const system = new HeldPrinterBackend();
    const backend = new PrinterBackendByName(system);
    expect(await backend.listPrinters(['Zebra', `folder:${out.dir}`, `folder:${out.dir}`])).toEqual(
      [
        readyPrinter('Fake', { is_default: true }),
        { ...readyPrinter(`folder:${out.dir}`), accepting_jobs: null },
      ],
    );
  });
});

describe('folder printer state', () => {
  it('is idle for a writable folder, and for one not there yet whose parent is writable', async () => {
    const idle = { state: 'idle', reasons: [], accepting_jobs: null, message: null };
    expect(await folderStatus(out.dir)).toEqual(idle);
    expect(await folderStatus(join(out.dir, 'new', 'deeper'))).toEqual(idle);
  });

  it('is stopped, saying why, when the path is a file', async () => {
    const backend = new FolderBackend();
    await backend.print(
      { id: 1, title: null, content_type: 'text/plain', copies: 1 },
      Buffer.from('x'),
      `folder:${out.dir}`,
      {},
    );
    const file = join(out.dir, '1.txt');
    expect(await folderStatus(file)).toEqual({
      state: 'stopped',
      reasons: ['other-error'],
      accepting_jobs: null,
      message: `cannot write into ${file}: ${file} is not a directory`,
    });
  });
});

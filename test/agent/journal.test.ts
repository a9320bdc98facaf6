import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../agent/core/atomic-file.ts';
import { JobJournal } from '../../agent/core/journal.ts';
import { makeStateDir } from './helpers/state-dir.ts';

let state: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  state = await makeStateDir();
});
afterEach(async () => {
  await state.cleanup();
});

const noBadRecords = (file: string, error: unknown) => {
  throw new Error(`unexpected bad record ${file}: ${error}`);
};

describe('writeFileAtomic', () => {
  it('never lets a reader see a torn file while it is rewritten', async () => {
    const path = join(state.dir, 'record.json');
    // Large enough that a plain writeFile is written in several chunks.
    const versions = ['a', 'b', 'c', 'd'].map((letter) =>
      JSON.stringify({ fill: letter.repeat(4 * 1024 * 1024) }),
    );
    await writeFileAtomic(path, versions[0]!);
    let writing = true;
    const writer = (async () => {
      for (let round = 0; round < 12; round++) {
        await writeFileAtomic(path, versions[round % versions.length]!);
      }
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const text = await readFile(path, 'utf8');
      expect(versions).toContain(text);
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
    // No temp files are left behind.
    expect(await readdir(state.dir)).toEqual(['record.json']);
  });

  it('writes the file private to the agent (0600)', async () => {
    const path = join(state.dir, 'secret.json');
    await writeFileAtomic(path, '{}');
    const { stat } = await import('node:fs/promises');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});

describe('JobJournal', () => {
  it('keeps an entry per job through spooling and its end, and removes it', async () => {
    const journal = new JobJournal(state.dir);
    const entry = await journal.beginSpooling(
      { job_id: 7, route: 'receipts', title: 'R', printer: 'folder:/x' },
      new Date('2026-11-22T10:00:00Z'),
    );
    expect(await journal.readAll(noBadRecords)).toEqual([entry]);
    const ended = await journal.finish(
      entry,
      { state: 'failed', error: { code: 'printer_stopped', message: 'paper jam' } },
      new Date('2026-11-22T10:00:05Z'),
    );
    expect(await new JobJournal(state.dir).readAll(noBadRecords)).toEqual([ended]);
    expect(ended).toMatchObject({ state: 'failed', ended_at: '2026-11-22T10:00:05.000Z' });
    await journal.remove(7);
    expect(await journal.readAll(noBadRecords)).toEqual([]);
  });

  it('ignores temp files a crash left half written (cleared at start-up), and reports broken records', async () => {
    const journal = new JobJournal(state.dir);
    await journal.beginSpooling(
      { job_id: 1, route: 'a4', title: null, printer: 'P' },
      new Date('2026-11-22T10:00:00Z'),
    );
    await writeFile(join(journal.dir, '.2.json.abcdef.tmp'), '{"job_id": 2, "sta');
    await writeFile(join(journal.dir, '3.json'), 'not json');
    const bad: string[] = [];
    const entries = await journal.readAll((file) => bad.push(file));
    expect(entries.map((entry) => entry.job_id)).toEqual([1]);
    expect(bad).toEqual(['3.json']);
    // Reading deletes nothing: a temp file may be a write in progress.
    expect((await readdir(journal.dir)).sort()).toEqual(['.2.json.abcdef.tmp', '1.json', '3.json']);
    await journal.removeCrashLeftovers();
    expect((await readdir(journal.dir)).sort()).toEqual(['1.json', '3.json']);
  });

  it('survives kill -9 right after an entry is begun: the entry is there, whole', async () => {
    // A separate process writes the entry and kills itself at once, as a crash would.
    const script = `
      import { JobJournal } from ${JSON.stringify(join(process.cwd(), 'agent/core/journal.ts'))};
      const journal = new JobJournal(process.argv[1]);
      await journal.beginSpooling({ job_id: 42, route: 'labels', title: 'L', printer: 'ZPL' }, new Date());
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, state.dir], {
      stdio: 'inherit',
    });
    const signal = await new Promise((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    const entries = await new JobJournal(state.dir).readAll(noBadRecords);
    expect(entries).toMatchObject([{ job_id: 42, state: 'spooling', printer: 'ZPL' }]);
  });
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/** The npm scripts run in every shell npm uses: sh on Linux and macOS, cmd.exe on Windows. */

const root = join(import.meta.dirname, '..', '..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
  string,
  string
>;
const work = mkdtempSync(join(tmpdir(), 'shopdesk-scripts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm scripts', () => {
  it.each(Object.entries(scripts))('%s sets no variable the POSIX way (VAR=value cmd)', (_n, s) => {
    // cmd.exe reads `NODE_ENV=production tsx …` as a command named NODE_ENV=production.
    expect(s).not.toMatch(/(^|&&|;|\|)\s*[A-Za-z_][A-Za-z0-9_]*=\S*\s/);
  });

  it('agent:package bundles minified through a flag', async () => {
    expect(scripts['agent:package']).toMatch(/^tsx agent\/electron\/bundle\.ts --minify && /);
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    // TMPDIR: tsx keeps its cache in the temporary folder; this test's is removed after.
    const env = { ...process.env, TMPDIR: work };
    const plain = join(work, 'plain');
    const minified = join(work, 'minified');
    await promisify(execFile)(tsx, ['agent/electron/bundle.ts', plain], { cwd: root, env });
    await promisify(execFile)(tsx, ['agent/electron/bundle.ts', minified, '--minify'], {
      cwd: root,
      env,
    });
    const size = (dir: string) => readFileSync(join(dir, 'main.js')).byteLength;
    expect(size(minified)).toBeLessThan(size(plain) * 0.8);
  }, 120_000);
});

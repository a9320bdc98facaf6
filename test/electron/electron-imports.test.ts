import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const importsElectron =
  /from ['"]electron['"]|import\(['"]electron['"]\)|require\(['"]electron['"]\)/;

describe('where electron may be imported', () => {
  const allowed = /^agent\/electron\/(main|preload)\//;
  const files = [...sourceFiles('agent'), ...sourceFiles('shared')].filter(
    (file) => !file.startsWith('agent/electron/dist/'),
  );

  it('finds the files it checks', () => {
    expect(files).toContain('agent/electron/main/index.ts');
    expect(files).toContain('agent/electron/renderer/app.tsx');
  });

  it('only main/ and preload/ import electron; common/, renderer/, the core and shared/ never', () => {
    const offenders = files
      .filter((file) => !allowed.test(file))
      .filter((file) => importsElectron.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it.each([
    'agent/electron/main/tray-menu.ts',
    'agent/electron/main/tray-state.ts',
    'agent/electron/main/launch-options.ts',
    'agent/electron/main/start-at-login.ts',
    'agent/electron/main/app-protocol.ts',
    'agent/electron/main/agent-supervisor.ts',
    'agent/electron/main/agent-actions.ts',
  ])('%s stays free of electron so it is tested without it', (file) => {
    expect(importsElectron.test(readFileSync(join(root, file), 'utf8'))).toBe(false);
  });
});

import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sourceFiles } from './import-graph.ts';

/**
 * Files with one job each, named by what they do (docs/architecture.md). The folders
 * checked are listed once, here.
 */
const checkedFolders = ['server', 'shared', 'agent', 'cli', 'console', 'ui', 'test', 'bench'];
const files = checkedFolders.flatMap(sourceFiles);

/** Past this, a file does several jobs: split it by job (one operation per file). */
const maxLines = 450;

const kebabCase = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*\.tsx?$/;
/**
 * A migration's file name is the name each database records it under (`001_core`), so it
 * keeps the form it was released with.
 */
const migration = /^server\/storage\/migrations\/\d{3}_[a-z]+(_[a-z]+)*\.ts$/;

const linesOf = (file: string) => {
  const text = readFileSync(join(root, file), 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
};

describe(`source files of ${checkedFolders.join(', ')}`, () => {
  it('finds what it checks', () => {
    expect(files).toContain('server/printing/jobs/claim-job.ts');
    expect(files).toContain('shared/errors.ts');
  });

  it(`has none over ${maxLines} lines`, () => {
    const long = files.map((file) => ({ file, lines: linesOf(file) }));
    expect(long.filter(({ lines }) => lines > maxLines)).toEqual([]);
  });

  it('names every file and folder in kebab-case', () => {
    const badlyNamed = files.filter(
      (file) =>
        !migration.test(file) &&
        !(kebabCase.test(basename(file)) && file.split('/').slice(0, -1).every(isKebabFolder)),
    );
    expect(badlyNamed).toEqual([]);
  });
});

function isKebabFolder(name: string): boolean {
  return /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
}

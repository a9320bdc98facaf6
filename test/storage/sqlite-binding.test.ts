import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * better-sqlite3 runs from the prebuilt N-API binary inside its package, never from a
 * node-gyp build: package.json `allowScripts` denies it its install script, so no build
 * against some other Node's headers (a machine's npm `nodedir`, say) can shadow the prebuild.
 */

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));

describe('the SQLite binding', () => {
  it('is the prebuild: no node-gyp output, which its loader would take first', () => {
    for (const build of ['Debug', 'Release']) {
      expect(existsSync(join(packageDir, 'build', build, 'better_sqlite3.node'))).toBe(false);
    }
    const { getPrebuildPath } = require(join(packageDir, 'lib', 'binding.js')) as {
      getPrebuildPath(): string | null;
    };
    expect(getPrebuildPath()).toMatch(/prebuilds[\\/][\w-]+\.node$/);
  });

  it('loads and answers on this Node', () => {
    const Database = require('better-sqlite3') as typeof import('better-sqlite3');
    const db = new Database(':memory:');
    try {
      expect(db.prepare('select sqlite_version() as v').get()).toMatchObject({
        v: expect.stringMatching(/^3\./),
      });
    } finally {
      db.close();
    }
  });
});

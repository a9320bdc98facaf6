import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchForUpdates } from '../../agent/core/update-notice.ts';
import { agentVersion } from '../../agent/core/version.ts';
import { addRelease, releaseChunkBytes } from '../../server/releases/add-release.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent } from '../printing/helpers.ts';

/**
 * How a build is kept: written a chunk at a time while the file is still being read (never
 * whole in memory), with the SHA-512 electron-updater checks; and the headless agent's line
 * when a newer build is offered.
 */
describe.each(databaseKinds)('agent builds (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServerOn(kind);
  });
  afterAll(() => server.close());

  it('stores the file while it is read, chunk by chunk, with its SHA-512', async () => {
    const db = server.app.services.storage.db;
    const piece = randomBytes(64 * 1024);
    const pieces = 50; // 3.125 MiB
    const hash = createHash('sha512');
    let storedWhileReading = 0;
    async function* file() {
      for (let i = 0; i < pieces; i++) {
        if (i === pieces - 1) {
          const row = await db
            .selectFrom('agent_release_chunks')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          storedWhileReading = Number(row.n);
        }
        hash.update(piece);
        yield piece;
      }
    }
    const release = await addRelease(
      server.app.services.storage,
      {
        version: '2.0.0',
        platform: 'win',
        channel: 'stable',
        rollout: 100,
        fileName: 'ShopDesk-Print-Agent-Setup-2.0.0.exe',
        content: file(),
      },
      new Date(),
    );
    // Three whole chunks were in the database before the last piece was read.
    expect(storedWhileReading).toBe(3);
    expect(release).toMatchObject({ complete: 1, sha512: hash.digest('base64') });
    expect(Number(release.size)).toBe(pieces * piece.length);
    const sizes = await db
      .selectFrom('agent_release_chunks')
      .select(['seq', 'data'])
      .where('release_id', '=', release.id)
      .orderBy('seq')
      .execute();
    expect(sizes.map((row) => row.data.length)).toEqual([
      releaseChunkBytes,
      releaseChunkBytes,
      releaseChunkBytes,
      pieces * piece.length - 3 * releaseChunkBytes,
    ]);
  });

  it('keeps nothing of an upload cut off half-way, and takes the same version again after', async () => {
    const storage = server.app.services.storage;
    async function* broken() {
      yield randomBytes(releaseChunkBytes + 10);
      throw new Error('the disk went away');
    }
    const attempt = {
      version: '2.1.0',
      platform: 'linux' as const,
      channel: 'stable' as const,
      rollout: 100,
      fileName: 'ShopDesk-Print-Agent-2.1.0.AppImage',
    };
    await expect(
      addRelease(storage, { ...attempt, content: broken() }, new Date()),
    ).rejects.toThrow('the disk went away');
    const left = await storage.db
      .selectFrom('agent_releases')
      .select('id')
      .where('version', '=', '2.1.0')
      .execute();
    expect(left).toEqual([]);
    async function* whole() {
      yield Buffer.from('the build');
    }
    await expect(
      addRelease(storage, { ...attempt, content: whole() }, new Date()),
    ).resolves.toMatchObject({
      complete: 1,
    });
  });

  it('the headless agent says once that a newer version is offered', async () => {
    const company = await server.createCompany();
    const agent = await registerAgent(server, company, []);
    const said: string[] = [];
    const watch = watchForUpdates({
      serverUrl: server.url,
      token: agent.token,
      agentId: () => agent.uuid,
      platform: 'linux',
      say: (level, message) => said.push(`${level} ${message}`),
    });
    try {
      expect(await watch.check()).toBe('2.1.0');
      expect(await watch.check()).toBe('2.1.0');
      expect(said.filter((line) => line.includes('newer agent version'))).toEqual([
        `info a newer agent version is available: 2.1.0 (this is ${agentVersion}); install it to update`,
      ]);
    } finally {
      watch.stop();
    }
  });
});

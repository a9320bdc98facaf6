import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CancellationToken } from 'builder-util-runtime';
import { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor.js';
import { GenericProvider } from 'electron-updater/out/providers/GenericProvider.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRelease } from '../../server/releases/add-release.ts';
import { offeredTo, rolloutBucket } from '../../server/releases/releases.ts';
import type { ReleaseChannel, ReleasePlatform } from '../../shared/releases.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent } from '../printing/helpers.ts';

/**
 * The update feed as a real electron-updater reads it: its GenericProvider asks for
 * latest-linux.yml and parses it with its own parser, then its executor downloads the build
 * and checks its SHA-512. Electron's `net` is the one thing replaced (no Electron binary
 * here): requests go through Node's http instead (`NodeNetExecutor`).
 */
class NodeNetExecutor extends ElectronHttpExecutor {
  // biome-ignore lint/suspicious/noExplicitAny: electron-updater's own signature.
  override createRequest(options: any, callback: (response: any) => void): any {
    const { redirect: _redirect, ...rest } = options;
    return httpRequest(rest, callback);
  }
}

/** A build's bytes in pieces of odd sizes, as a file stream gives them. */
function pieces(bytes: Buffer): AsyncIterable<Uint8Array> {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + ((at * 7919) % 700_000);
    parts.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(parts);
}

const sha512 = (bytes: Buffer) => createHash('sha512').update(bytes).digest('base64');

describe.each(databaseKinds)('the update feed (%s)', (kind) => {
  let server: TestServer;
  let company: number;
  let agentToken: string;
  let dir: string;
  const build = randomBytes(2 * 1024 * 1024 + 12_345);

  const publish = (
    version: string,
    platform: ReleasePlatform,
    rollout = 100,
    channel: ReleaseChannel = 'stable',
    bytes = build,
  ) =>
    addRelease(
      server.app.services.storage,
      {
        version,
        platform,
        channel,
        rollout,
        fileName: `ShopDesk-Print-Agent-${version}-${platform}-${channel}.AppImage`,
        content: pieces(bytes),
      },
      new Date(),
    );

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    company = await server.createCompany();
    agentToken = await server.token(company, ['printing.agent']);
    dir = await mkdtemp(join(tmpdir(), 'shopdesk-updates-'));
    process.env['TEST_UPDATER_ARCH'] = 'x64';
    await publish('1.1.0', 'linux', 100, 'stable', randomBytes(1000));
    await publish('1.2.0', 'linux');
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  function provider(agentId: string) {
    const executor = new NodeNetExecutor();
    const generic = new GenericProvider(
      { provider: 'generic', url: `${server.api}/printing/updates/stable/` },
      // biome-ignore lint/suspicious/noExplicitAny: the two fields of AppUpdater the provider reads.
      { channel: null, isAddNoCacheQuery: true } as any,
      { isUseMultipleRangeRequest: false, platform: 'linux', executor },
    );
    const headers = { authorization: `Bearer ${agentToken}`, 'x-agent-id': agentId };
    generic.setRequestHeaders(headers);
    return { generic, executor, headers };
  }

  it("serves what electron-updater's generic provider requests, with the build's SHA-512", async () => {
    const { generic, executor, headers } = provider(randomUUID());
    const info = await generic.getLatestVersion();
    expect(info.version).toBe('1.2.0');
    expect(info.files).toEqual([
      {
        url: 'ShopDesk-Print-Agent-1.2.0-linux-stable.AppImage',
        sha512: sha512(build),
        size: build.length,
      },
    ]);
    const [file] = generic.resolveFiles(info);
    expect(file!.url.pathname).toBe(
      '/api/v1/printing/updates/stable/ShopDesk-Print-Agent-1.2.0-linux-stable.AppImage',
    );
    const destination = join(dir, `download-${kind}`);
    await executor.download(file!.url, destination, {
      headers,
      sha512: file!.info.sha512,
      cancellationToken: new CancellationToken(),
    });
    expect((await readFile(destination)).equals(build)).toBe(true);
    // The same executor refuses bytes that do not match the hash it was given.
    await expect(
      executor.download(file!.url, `${destination}-2`, {
        headers,
        sha512: sha512(Buffer.from('something else')),
        cancellationToken: new CancellationToken(),
      }),
    ).rejects.toThrow(/sha512 checksum mismatch/);
  });

  it('serves a byte range across chunk boundaries (206, Content-Range)', async () => {
    const start = 1024 * 1024 - 10;
    const end = 2 * 1024 * 1024 + 5;
    const answer = await fetch(
      `${server.api}/printing/updates/stable/ShopDesk-Print-Agent-1.2.0-linux-stable.AppImage`,
      { headers: { authorization: `Bearer ${agentToken}`, range: `bytes=${start}-${end}` } },
    );
    expect(answer.status).toBe(206);
    expect(answer.headers.get('content-range')).toBe(`bytes ${start}-${end}/${build.length}`);
    const body = Buffer.from(await answer.arrayBuffer());
    expect(body.equals(build.subarray(start, end + 1))).toBe(true);
    const suffix = await fetch(
      `${server.api}/printing/updates/stable/ShopDesk-Print-Agent-1.2.0-linux-stable.AppImage`,
      { headers: { authorization: `Bearer ${agentToken}`, range: 'bytes=-100' } },
    );
    expect(Buffer.from(await suffix.arrayBuffer()).equals(build.subarray(-100))).toBe(true);
  });

  it('is for agent tokens only', async () => {
    const integrator = await server.token(company, ['printing.jobs.read']);
    const refused = await server.request('GET', '/printing/updates/stable/latest-linux.yml', {
      token: integrator,
    });
    expect(refused.status).toBe(403);
    const anonymous = await fetch(`${server.api}/printing/updates/stable/latest-linux.yml`);
    expect(anonymous.status).toBe(401);
  });

  it('offers a 10 % rollout to about a tenth of the agents, the others the build before', async () => {
    await publish('1.3.0', 'linux', 10);
    // Fixed uuids: the share is the same at every run.
    const uuids = Array.from({ length: 300 }, (_, index) => {
      const hex = createHash('sha256').update(`agent ${index}`).digest('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    });
    const versions = await Promise.all(
      uuids.map(async (uuid) => (await provider(uuid).generic.getLatestVersion()).version),
    );
    const offered = versions.filter((version) => version === '1.3.0').length;
    expect(versions.filter((version) => version === '1.2.0')).toHaveLength(300 - offered);
    expect(offered).toBe(uuids.filter((uuid) => rolloutBucket(uuid) < 10).length);
    expect(offered).toBeGreaterThan(15);
    expect(offered).toBeLessThan(45);
  });

  it('shows each agent its version and whether it is behind in GET /printing/agents', async () => {
    const agent = await registerAgent(server, company, [], agentToken);
    await agent.call('GET', '/printing/updates/stable/latest-linux.yml');
    const reader = await server.token(company, ['printing.jobs.read']);
    const answer = await server.request('GET', `/printing/agents/${agent.uuid}`, { token: reader });
    expect(answer.status).toBe(200);
    const latest = offeredTo({ rollout: 10 }, agent.uuid) ? '1.3.0' : '1.2.0';
    expect(answer.body.data).toMatchObject({
      version: '0.1.0',
      update: { channel: 'stable', latest_version: latest, behind: true },
    });
    const list = await server.request('GET', '/printing/agents', { token: reader });
    expect(list.body.data[0].update.behind).toBe(true);
  });

  it('answers 404 when no build is published for the platform', async () => {
    const answer = await server.request('GET', '/printing/updates/beta/latest-mac.yml', {
      token: agentToken,
    });
    expect(answer.status).toBe(404);
  });
});

describe('rollout buckets', () => {
  it('put about a tenth of many agents under 10 %, and keep them when the rollout grows', () => {
    const uuids = Array.from({ length: 5000 }, () => randomUUID());
    const at10 = uuids.filter((uuid) => offeredTo({ rollout: 10 }, uuid));
    expect(at10.length / uuids.length).toBeGreaterThan(0.08);
    expect(at10.length / uuids.length).toBeLessThan(0.12);
    expect(at10.every((uuid) => offeredTo({ rollout: 50 }, uuid))).toBe(true);
    expect(uuids.every((uuid) => offeredTo({ rollout: 100 }, uuid))).toBe(true);
    expect(uuids.some((uuid) => offeredTo({ rollout: 0 }, uuid))).toBe(false);
    expect(offeredTo({ rollout: 99 }, null)).toBe(false);
  });
});

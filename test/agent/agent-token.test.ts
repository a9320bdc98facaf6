import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentTokenSources, readAgentToken } from '../../agent/core/agent-token.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { makeStateDir } from './helpers/state-dir.ts';

let dir: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await makeStateDir();
});
afterEach(() => dir.cleanup());

const linux = (sources: Partial<AgentTokenSources>): AgentTokenSources => ({
  env: {},
  platform: 'linux',
  ...sources,
});

async function tokenFile(content: string | Buffer, mode = 0o600, name = 'agent-token') {
  const file = join(dir.dir, name);
  await writeFile(file, content);
  await chmod(file, mode);
  return file;
}

describe('the agent token: one source', () => {
  it('takes SHOPDESK_AGENT_TOKEN', async () => {
    expect(await readAgentToken(linux({ env: { SHOPDESK_AGENT_TOKEN: 'sd_env' } }))).toEqual({
      token: 'sd_env',
      warnings: [],
    });
  });

  it('takes --token-file, without its trailing newline (LF or CR LF)', async () => {
    for (const ending of ['\n', '\r\n', '\n\n', '']) {
      const file = await tokenFile(`sd_file${ending}`);
      expect((await readAgentToken(linux({ tokenFile: file }))).token).toBe('sd_file');
    }
  });

  it('takes --token', async () => {
    expect((await readAgentToken(linux({ token: ' sd_flag ' }))).token).toBe('sd_flag');
  });

  it('counts an empty SHOPDESK_AGENT_TOKEN as unset', async () => {
    const read = await readAgentToken(linux({ env: { SHOPDESK_AGENT_TOKEN: '' }, token: 'sd_t' }));
    expect(read.token).toBe('sd_t');
  });

  it.each([
    [{ env: { SHOPDESK_AGENT_TOKEN: 'a' }, token: 'b' }, '(SHOPDESK_AGENT_TOKEN, --token)'],
    [
      { env: { SHOPDESK_AGENT_TOKEN: 'a' }, tokenFile: '/x' },
      '(SHOPDESK_AGENT_TOKEN, --token-file)',
    ],
    [{ tokenFile: '/x', token: 'b' }, '(--token-file, --token)'],
    [{ env: { SHOPDESK_AGENT_TOKEN: 'a' }, tokenFile: '/x', token: 'b' }, 'given 3 times'],
  ])('refuses two sources at once: %j', async (sources, message) => {
    const refusal = readAgentToken(linux(sources));
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(readAgentToken(linux(sources))).rejects.toThrow(message);
  });

  it('refuses no source at all, naming the three', async () => {
    await expect(readAgentToken(linux({}))).rejects.toThrow(
      /^no token: set SHOPDESK_AGENT_TOKEN or pass --token-file FILE \(--token TOKEN works too/,
    );
  });
});

describe('the agent token: what a source may hold', () => {
  it.each([
    ['an empty file', '', 'is empty'],
    ['a file of newlines only', '\n\n', 'is empty'],
    ['two lines', 'sd_one\nsd_two\n', 'must hold the token alone'],
    ['a VAR=value line with a space', 'TOKEN = sd_x\n', 'must hold the token alone'],
    ['a tab', 'sd_\tx', 'must hold the token alone'],
    ['more than 4 KiB', 'x'.repeat(4097), 'larger than a token'],
  ])('refuses %s in --token-file', async (_what, content, message) => {
    const file = await tokenFile(content);
    await expect(readAgentToken(linux({ tokenFile: file }))).rejects.toThrow(message);
  });

  it('takes a token of exactly 4 KiB (the limit is on the file, not below it)', async () => {
    const file = await tokenFile('y'.repeat(4096));
    expect((await readAgentToken(linux({ tokenFile: file }))).token).toHaveLength(4096);
  });

  it('says why a --token-file cannot be read: missing, a directory', async () => {
    await expect(readAgentToken(linux({ tokenFile: join(dir.dir, 'nope') }))).rejects.toThrow(
      `--token-file ${join(dir.dir, 'nope')} cannot be read: no such file`,
    );
    await mkdir(join(dir.dir, 'folder'));
    await expect(readAgentToken(linux({ tokenFile: join(dir.dir, 'folder') }))).rejects.toThrow(
      'is a directory',
    );
  });

  it('refuses a token with a space in SHOPDESK_AGENT_TOKEN, and an empty --token', async () => {
    await expect(
      readAgentToken(linux({ env: { SHOPDESK_AGENT_TOKEN: 'sd_a sd_b' } })),
    ).rejects.toThrow('SHOPDESK_AGENT_TOKEN must hold the token alone');
    await expect(readAgentToken(linux({ token: '  ' }))).rejects.toThrow(
      '--token must not be empty',
    );
  });
});

describe('the agent token file: who else can read it', () => {
  it.each([
    [0o644, true],
    [0o640, true],
    [0o604, true],
    [0o600, false],
    [0o400, false],
  ])('mode %s: warns %s', async (mode, warns) => {
    const file = await tokenFile('sd_x\n', mode);
    const { warnings } = await readAgentToken(linux({ tokenFile: file }));
    if (warns) {
      expect(warnings).toEqual([
        `--token-file ${file} can be read by other users (mode 0${mode.toString(8)}); make it private: chmod 600 ${file}`,
      ]);
    } else {
      expect(warnings).toEqual([]);
    }
  });

  it('does not warn on Windows, whose ACLs the mode bits do not show', async () => {
    const file = await tokenFile('sd_x\n', 0o644);
    const read = await readAgentToken({ tokenFile: file, env: {}, platform: 'win32' });
    expect(read.warnings).toEqual([]);
  });

  it("does not warn for systemd's credentials (0440 through an ACL mask), only inside that folder", async () => {
    const credentials = join(dir.dir, 'credentials');
    await mkdir(credentials);
    const file = join(credentials, 'agent-token');
    await writeFile(file, 'sd_x');
    await chmod(file, 0o440);
    const env = { CREDENTIALS_DIRECTORY: credentials };
    expect((await readAgentToken(linux({ tokenFile: file, env }))).warnings).toEqual([]);
    // The same file elsewhere, or the folder's sibling with a shared prefix, is warned about.
    const beside = await tokenFile('sd_x', 0o440, 'credentials-old');
    expect((await readAgentToken(linux({ tokenFile: beside, env }))).warnings).toHaveLength(1);
  });
});

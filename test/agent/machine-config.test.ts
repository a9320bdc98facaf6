import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MachineConfigError,
  machineConfigPath,
  parseMachineConfig,
} from '../../agent/core/machine-config.ts';
import { spawnShopdesk } from '../agent-e2e/helpers/agent-process.ts';

/**
 * The machine-wide configuration file (docs/it-guide.md, "Push a configuration"): each bad
 * field gets one line naming the file, the field and the fix.
 */
const file = '/etc/shopdesk/agent.json';

const problemsOf = (text: string): string[] => {
  try {
    parseMachineConfig(file, text);
  } catch (error) {
    if (error instanceof MachineConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('each bad field of the configuration file', () => {
  it.each([
    [
      'not JSON',
      '{"server": ',
      /^\/etc\/shopdesk\/agent\.json: not valid JSON \(.+\); fix the syntax/,
    ],
    [
      'not an object',
      '["https://x"]',
      `${file}: (the whole file): must be a JSON object of settings, e.g. {"server": "https://shopdesk.example.com"}`,
    ],
    [
      'an unknown key',
      '{"servr": "https://x"}',
      `${file}: servr: is not a setting; remove it or correct its spelling (settings: server, enrollmentCode, tokenFile, token, routes, profiles, name, stateDir, updateChannel, startAtLogin, autoUpdate)`,
    ],
    [
      'server not http(s)',
      '{"server": "ftp://shop"}',
      `${file}: server: must be an http:// or https:// address without a password or query; write the server's address, e.g. "https://shopdesk.example.com"`,
    ],
    [
      'server with a password',
      '{"server": "https://u:p@shop"}',
      `${file}: server: must be an http:// or https:// address without a password or query; write the server's address, e.g. "https://shopdesk.example.com"`,
    ],
    [
      'server not text',
      '{"server": 8080}',
      `${file}: server: must be text: the server's address, e.g. "https://shopdesk.example.com"`,
    ],
    [
      'enrollmentCode malformed',
      '{"enrollmentCode": "K7QF-M2X0"}',
      `${file}: enrollmentCode: is not an enrolment code; copy the code \`shopdesk enrollment create\` printed, e.g. "K7QF-M2XD"`,
    ],
    [
      'tokenFile relative',
      '{"tokenFile": "agent-token"}',
      `${file}: tokenFile: must be an absolute path to a file holding the token alone, e.g. "/etc/shopdesk/agent-token"`,
    ],
    [
      'token with a space',
      '{"token": "sd_a b"}',
      `${file}: token: must be the token alone, one word; or use tokenFile`,
    ],
    [
      'routes as a list',
      '{"routes": ["receipts"]}',
      `${file}: routes: must be an object of route name → printer, or a list of printers tried in order, e.g. {"receipts": ["Front-1", "Front-2"]}`,
    ],
    [
      'an empty list of printers',
      '{"routes": {"receipts": []}}',
      `${file}: routes.receipts: is an empty list; name at least one printer`,
    ],
    [
      'a comma inside a printer of a list',
      '{"routes": {"receipts": ["Front-1,Front-2"]}}',
      `${file}: routes.receipts.0: must not contain a comma`,
    ],
    [
      'more backups than a route takes',
      '{"routes": {"receipts": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}}',
      `${file}: routes.receipts: names more than 8 printers (the first and 7 backups)`,
    ],
    [
      'a bad route name',
      '{"routes": {"Receipts": "EPSON"}}',
      `${file}: routes.Receipts: is not a route name: 1 to 64 characters of a-z, 0-9, ".", "_" or "-"; rename it`,
    ],
    [
      'an empty printer',
      '{"routes": {"receipts": ""}}',
      `${file}: routes.receipts: must not be empty; write the printer's name on this computer, e.g. "EPSON_TM_T20"`,
    ],
    [
      'a profile the server would refuse',
      '{"routes": {"receipts": "EPSON"}, "profiles": {"receipts": {"language": "escpos", "width_mm": 75}}}',
      /^\/etc\/shopdesk\/agent\.json: profiles\.receipts\.width_mm: /,
    ],
    [
      'a profile of a route not mapped',
      '{"routes": {"receipts": "EPSON"}, "profiles": {"labels": {"language": "zpl"}}}',
      `${file}: profiles.labels: names a route that "routes" does not map to a printer; add it to routes or remove its profile`,
    ],
    [
      'profiles as a list',
      '{"profiles": ["escpos"]}',
      `${file}: profiles: must be an object of route name → printer profile, e.g. {"receipts": {"language": "escpos", "width_mm": 80}}`,
    ],
    [
      'name empty',
      '{"name": ""}',
      `${file}: name: must not be empty; leave it out to use the computer's name`,
    ],
    [
      'stateDir relative',
      '{"stateDir": "state"}',
      `${file}: stateDir: must be an absolute path, e.g. "/var/lib/shopdesk-agent"`,
    ],
    [
      'updateChannel unknown',
      '{"updateChannel": "nightly"}',
      `${file}: updateChannel: must be one of stable, beta`,
    ],
    [
      'startAtLogin quoted',
      '{"startAtLogin": "true"}',
      `${file}: startAtLogin: must be true or false (no quotes)`,
    ],
    [
      'autoUpdate a number',
      '{"autoUpdate": 1}',
      `${file}: autoUpdate: must be true or false (no quotes)`,
    ],
    [
      'two ways to the token',
      '{"enrollmentCode": "K7QF-M2XD", "tokenFile": "/etc/shopdesk/agent-token"}',
      `${file}: enrollmentCode, tokenFile: give one way to the token, not 2; keep enrollmentCode for a new PC, or tokenFile for a token you placed`,
    ],
  ])('%s', (_what, text, expected) => {
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    if (typeof expected === 'string') expect(problems[0]).toBe(expected);
    else expect(problems[0]).toMatch(expected);
  });

  it('says every problem of a file at once, one line each', () => {
    expect(problemsOf('{"server": "x", "routes": {"A": "p"}, "extra": 1}')).toHaveLength(3);
  });

  it('takes a good file, a BOM and a code in any case included', () => {
    expect(
      parseMachineConfig(
        file,
        '\uFEFF{"server": "https://shopdesk.example.com", "enrollmentCode": "k7qf m2xd", "routes": {"receipts": "EPSON_TM_T20"}, "profiles": {"receipts": {"language": "escpos", "width_mm": 80}}}',
      ),
    ).toEqual({
      server: 'https://shopdesk.example.com',
      enrollmentCode: 'k7qf m2xd',
      routes: { receipts: 'EPSON_TM_T20' },
      profiles: { receipts: { language: 'escpos', width_mm: 80 } },
    });
  });

  it('takes a route as a list of printers, the first and its backups, beside the old single form', () => {
    expect(
      parseMachineConfig(
        file,
        '{"routes": {"receipts": ["Front-1", "Front-2"], "labels": "Zebra_ZD421"}}',
      ),
    ).toEqual({ routes: { receipts: ['Front-1', 'Front-2'], labels: 'Zebra_ZD421' } });
  });

  it('lives where IT pushes it on each OS', () => {
    expect(machineConfigPath('linux', {})).toBe('/etc/shopdesk/agent.json');
    expect(machineConfigPath('darwin', {})).toBe(
      '/Library/Application Support/ShopDesk/agent.json',
    );
    expect(machineConfigPath('win32', { ProgramData: 'D:\\Data' })).toBe(
      join('D:\\Data', 'ShopDesk', 'agent.json'),
    );
  });
});

describe('shopdesk agent --config', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shopdesk-config-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses a bad file with exit code 2, a line per problem, before anything is written', async () => {
    const config = join(dir, 'agent.json');
    await writeFile(config, '{"server": "shop", "routes": {"receipts": ""}}');
    const agent = spawnShopdesk(['agent', '--config', config, '--state-dir', join(dir, 'state')]);
    expect(await agent.exited).toBe(2);
    expect(agent.stderr()).toBe(
      `error: ${config}: server: must be an http:// or https:// address without a password or query; write the server's address, e.g. "https://shopdesk.example.com"\nerror: ${config}: routes.receipts: must not be empty; write the printer's name on this computer, e.g. "EPSON_TM_T20"\n`,
    );
  });

  it('names a missing file', async () => {
    const agent = spawnShopdesk(['agent', '--config', join(dir, 'nothing.json')]);
    expect(await agent.exited).toBe(2);
    expect(agent.stderr()).toContain(
      'nothing.json: cannot be read: no such file; check the path given to --config',
    );
  });
});

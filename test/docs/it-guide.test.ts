import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMachineConfig } from '../../agent/core/machine-config.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * docs/it-guide.md as IT runs it: every `sh` block in order, in one scratch folder, against a
 * real server (`https://shopdesk.example.com` stands for it, `K7QF-M2XD` in the JSON for a
 * code it made); `sh agent` blocks start an agent that must connect, then are stopped; the
 * JSON goes through the agent's own checks into `agent.json`; the Windows command is checked
 * against the installer's script (no Windows here).
 */
const root = resolve(import.meta.dirname, '../..');
const guide = readFileSync(join(root, 'docs/it-guide.md'), 'utf8');
const blocks = [...guide.matchAll(/```(sh agent|sh|json|bat)\n([\s\S]*?)```/g)].map((match) => ({
  kind: match[1]!,
  text: match[2]!,
}));

let server: RealAgentTestServer;
let dir: string;
let env: NodeJS.ProcessEnv;
const running: ChildProcess[] = [];

/** Each block's shell variables reach the next ones (CODE=$(…) in one, "$CODE" in another). */
const prelude = '[ -f ./.vars ] && . ./.vars\n';
// biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, where ${CODE:-} is the shell's.
const epilogue = '\nif [ -n "${CODE:-}" ]; then printf "CODE=%q\\n" "$CODE" > ./.vars; fi\n';

function bash(script: string, background = false) {
  const child = spawn(
    'bash',
    ['-euo', 'pipefail', '-c', prelude + script + (background ? '' : epilogue)],
    {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: background,
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, exited, out: () => out, err: () => err };
}

const forServer = (text: string) => text.replaceAll('https://shopdesk.example.com', server.url);

beforeAll(async () => {
  server = await startRealAgentTestServer({ heartbeatSeconds: 2, longPollWaitSeconds: 2 });
  dir = mkdtempSync(join(tmpdir(), 'shopdesk-it-guide-'));
  const bin = join(dir, '.bin');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'shopdesk'),
    `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin/shopdesk.js')}" "$@"\n`,
  );
  chmodSync(join(bin, 'shopdesk'), 0o755);
  // The builds `release add` publishes: stand-ins of a few bytes.
  writeFileSync(join(dir, 'ShopDesk-Print-Agent-1.2.0.AppImage'), 'an AppImage');
  writeFileSync(join(dir, 'ShopDesk-Print-Agent-Setup-1.2.0.exe'), 'an NSIS installer');
  const itToken = await server.issueToken(['printing.agents.write', 'printing.jobs.read']);
  env = {
    ...process.env,
    PATH: `${bin}:${process.env['PATH']}`,
    SHOPDESK_DB: server.dbFile,
    SHOPDESK_LOG_LEVEL: 'silent',
    IT_TOKEN: itToken.secret,
  };
});

afterAll(async () => {
  for (const child of running) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/it-guide.md, run as written', () => {
  it('has the blocks it promises', () => {
    expect(blocks.filter((block) => block.kind === 'sh').length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((block) => block.kind === 'sh agent').length).toBe(2);
  });

  it('runs every block in order', { timeout: 90_000 }, async () => {
    for (const [index, block] of blocks.entries()) {
      const what = `block ${index + 1} (${block.kind}): ${block.text.split('\n')[0]}`;
      if (block.kind === 'json') {
        // A code of the test's own for the file (the guide revoked its first one).
        const made = bash(
          'shopdesk enrollment create --company 1 --routes receipts,labels --uses 5',
        );
        expect(await made.exited, made.err()).toBe(0);
        const text = forServer(block.text).replace('K7QF-M2XD', made.out().trim());
        expect(() => parseMachineConfig('agent.json', text), what).not.toThrow();
        writeFileSync(join(dir, 'agent.json'), text);
      } else if (block.kind === 'bat') {
        const nsis = readFileSync(join(root, 'agent/electron/build/installer.nsh'), 'utf8');
        expect(block.text, what).toMatch(
          /^ShopDesk-Print-Agent-Setup-[\d.]+\.exe \/S \/CONFIG=\S+\n$/,
        );
        // biome-ignore lint/suspicious/noTemplateCurlyInString: NSIS source, ${GetOptions} is its macro.
        expect(nsis).toContain('${GetOptions} $R0 "/CONFIG=" $R1');
        expect(nsis).toContain('"$APPDATA\\ShopDesk\\agent.json"');
      } else if (block.kind === 'sh') {
        const run = bash(forServer(block.text));
        const code = await run.exited;
        expect(code, `${what}\n${run.err()}`).toBe(0);
        if (block.text.includes('enrollment create')) {
          expect(run.out().trim()).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
        }
        if (block.text.includes('printing/agents')) {
          const agents = run.out();
          expect(agents).toContain('"online": true');
          expect(agents).toContain('"behind": false');
        }
        if (block.text.includes('release list')) {
          expect(run.out()).toMatch(/^1\t1\.2\.0\tlinux\tstable\t10%/m);
        }
      } else {
        // An agent: it must connect; it stays up (its printers watched) until a later block
        // has read the fleet, then everything is stopped at the end.
        const agent = bash(forServer(block.text), true);
        running.push(agent.child);
        await waitFor(`${what} connected`, () => agent.err().includes('connected;'), 30_000).catch(
          (error: unknown) => {
            throw new Error(`${(error as Error).message}\n${agent.err()}`);
          },
        );
      }
    }
  });
});

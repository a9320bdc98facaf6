import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../../server/config.ts';
import { systemdAnalyzeVerify } from '../helpers/system-programs.ts';

/**
 * The server's systemd template unit and its environment file, as docs/deploy.md shows
 * them: systemd is not PID 1 here, so `systemd-analyze verify` checks the unit (an
 * instance of the template), and the server's own environment parser reads the file.
 */
const docs = () => readFile(join(import.meta.dirname, '../../docs/deploy.md'), 'utf8');

async function block(language: string, firstLine: string): Promise<string> {
  const text = await docs();
  const start = text.indexOf(`\`\`\`${language}\n${firstLine}\n`);
  if (start < 0) throw new Error(`docs/deploy.md has no ${language} block starting ${firstLine}`);
  const body = text.slice(start + language.length + 4);
  return body.slice(0, body.indexOf('\n```'));
}

describe('docs/deploy.md: the server as systemd instances', () => {
  it('the template unit passes systemd-analyze verify without a word', async () => {
    const unit = await block('ini', '# /etc/systemd/system/shopdesk@.service');
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/shopdesk/bin/shopdesk.js serve');
    expect(unit).toContain('--port %i');
    const dir = await mkdtemp(join(tmpdir(), 'shopdesk-unit-'));
    try {
      const file = join(dir, 'shopdesk@8080.service');
      await writeFile(file, `${unit}\n`);
      const { stdout, stderr } = await systemdAnalyzeVerify(file, ['--man=no']);
      expect(`${stdout}${stderr}`).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the environment file holds settings the server reads, and nothing it would refuse', async () => {
    const text = await block('sh', '# /etc/shopdesk/server.env — the same for every instance');
    const env: Record<string, string> = {};
    for (const line of text.split('\n')) {
      const match = /^([A-Z_]+)=(.*)$/.exec(line);
      if (match) env[match[1]!] = match[2]!;
    }
    expect(Object.keys(env).sort()).toEqual([
      'DATABASE_URL',
      'SHOPDESK_PUBLIC_URL',
      'SHOPDESK_SECRET_KEY',
      'SHOPDESK_TRUST_PROXY',
    ]);
    // The key is a placeholder in the docs: a real one in its place.
    env.SHOPDESK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
    const parsed = readEnvironment(env);
    expect(parsed.SHOPDESK_TRUST_PROXY).toBe(true);
    expect(parsed.SHOPDESK_PUBLIC_URL).toBe('https://shop.example.com');
  });
});

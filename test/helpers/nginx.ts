import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireService } from './services.ts';

/**
 * Debian's nginx as a process of the test (its package's own service is never started), and
 * the self-signed certificate it serves. Without nginx or openssl installed, the test is
 * skipped with a line saying so (or fails with it in CI: test/helpers/services.ts).
 */
export interface TestNginx {
  /** Stops its master process by pid (SIGTERM: nginx's fast shutdown, workers too). */
  stop(): Promise<void>;
}

/** A certificate for 127.0.0.1, valid one day: `cert.pem` and `key.pem` in `dir`. */
export async function selfSignedCertificate(dir: string): Promise<{ cert: string; key: string }> {
  await requireService('nginx');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/**
 * nginx in the foreground on `site` (what goes inside `http { }`), with its pid, logs and
 * temporary files in `dir`; the configuration is checked (`nginx -t`) first.
 */
export async function startNginx(dir: string, site: string): Promise<TestNginx> {
  await requireService('nginx');
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'worker_processes 1;',
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${join(dir, 'access.log')};`,
      `  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}`,
      site,
      '}',
      '',
    ].join('\n'),
  );
  execFileSync('nginx', ['-t', '-q', '-p', dir, '-c', conf], { stdio: 'pipe' });
  const nginx: ChildProcess = spawn('nginx', ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    stdio: 'ignore',
  });
  return {
    async stop() {
      if (nginx.pid === undefined || nginx.exitCode !== null) return;
      const gone = new Promise((resolve) => nginx.once('exit', resolve));
      process.kill(nginx.pid, 'SIGTERM');
      await gone;
    },
  };
}

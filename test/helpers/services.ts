import { access, constants } from 'node:fs/promises';
import { connect } from 'node:net';

/**
 * The services and programs outside Node that some tests use, each with how to tell it is
 * there and the one line that says what is missing and how `.ci/run` provides it.
 *
 * The helpers that start or reach a service (`freshDatabase()`, `startTestCups()`,
 * `launchChromium()`, `redisUrl()`, `startNginx()`…) call `requireService` first, so a test
 * written with them declares what it needs by using them. When the service is missing the
 * helper throws `ServiceMissing`; the runner (`test/helpers/service-runner.ts`) turns the
 * test, or the whole `describe` whose `beforeAll` threw, into a skip with that line, unless
 * `CI=true` or `SHOPDESK_REQUIRE_SERVICES=1`, where it stays a failure with that line.
 * docs/testing.md tells the whole of it.
 */

const postgresUrl = new URL(
  process.env.SHOPDESK_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test',
);
const redisUrl = new URL(process.env.SHOPDESK_TEST_REDIS ?? 'redis://127.0.0.1:6379');

interface Service {
  /** Resolves true when the service answers (or the program is installed). */
  present(): Promise<boolean>;
  /** What is missing and how `.ci/run` provides it: one line. */
  missing: string;
}

export const services = {
  postgres: {
    present: () => answers(postgresUrl.hostname, Number(postgresUrl.port || 5432)),
    missing: `PostgreSQL does not answer at ${postgresUrl.host} (SHOPDESK_TEST_PG): .ci/run starts it with pg_ctlcluster (Debian package postgresql)`,
  },
  redis: {
    present: () => answers(redisUrl.hostname, Number(redisUrl.port || 6379)),
    missing: `Redis does not answer at ${redisUrl.host} (SHOPDESK_TEST_REDIS): .ci/run starts it with redis-server (Debian package redis-server)`,
  },
  cups: {
    present: () =>
      allOf(
        file('/usr/sbin/cupsd'),
        onPath('lp'),
        onPath('lpadmin'),
        file('/usr/lib/cups/backend/cups-pdf'),
      ),
    missing:
      'CUPS is not installed (cupsd, lp, lpadmin, the cups-pdf backend): .ci/run installs the Debian packages cups, cups-client, cups-bsd and cups-pdf',
  },
  chromium: {
    present: () => file('/usr/bin/chromium'),
    missing:
      'Chromium is not installed at /usr/bin/chromium: .ci/run installs the Debian package chromium',
  },
  nginx: {
    present: () => allOf(file('/usr/sbin/nginx'), onPath('openssl')),
    missing:
      'nginx or openssl is not installed: .ci/run installs the Debian packages nginx and openssl',
  },
  'systemd-analyze': {
    present: () => onPath('systemd-analyze'),
    missing:
      "systemd's systemd-analyze is not installed: .ci/run installs the Debian package systemd (systemd need not run)",
  },
  curl: {
    present: () => onPath('curl'),
    missing: 'curl is not installed: .ci/run installs the Debian package curl',
  },
  pdftotext: {
    present: () => onPath('pdftotext'),
    missing: 'pdftotext is not installed: .ci/run installs the Debian package poppler-utils',
  },
  socat: {
    present: () => onPath('socat'),
    missing:
      'socat is not installed (a pseudo-terminal stands in for a USB printer): .ci/run installs the Debian package socat',
  },
} satisfies Record<string, Service>;

export type ServiceName = keyof typeof services;

/** Thrown by a helper whose service is missing; its message is the service's one line. */
export class ServiceMissing extends Error {
  override name = 'ServiceMissing';
}

/** Whether a missing service fails the run (CI, or asked for) instead of skipping. */
export function servicesRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.SHOPDESK_REQUIRE_SERVICES === '1';
}

const checked = new Map<ServiceName, Promise<boolean>>();

/** Whether the service is there; asked once per test process. */
export function hasService(name: ServiceName): Promise<boolean> {
  let answer = checked.get(name);
  if (answer === undefined) {
    answer = services[name].present();
    checked.set(name, answer);
  }
  return answer;
}

/** Throws `ServiceMissing` with the service's line when it is not there. */
export async function requireService(name: ServiceName): Promise<void> {
  if (!(await hasService(name))) throw new ServiceMissing(services[name].missing);
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (present: boolean) => {
      socket.destroy();
      resolve(present);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function file(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function onPath(command: string): Promise<boolean> {
  const dirs = (process.env.PATH ?? '').split(':').concat('/usr/sbin', '/sbin');
  return Promise.all(dirs.map((dir) => file(`${dir}/${command}`))).then((found) =>
    found.includes(true),
  );
}

async function allOf(...checks: Promise<boolean>[]): Promise<boolean> {
  return (await Promise.all(checks)).every(Boolean);
}

import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Instances, TestDialect } from '../helpers/instances.ts';
import { sentDuring } from '../helpers/pg-sent.ts';
import { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import { EpsonSdpPrinter } from '../helpers/printer-simulators/epson-sdp.ts';
import type { TestServer } from '../helpers/server.ts';
import { shopdesk } from '../helpers/shopdesk-cli.ts';
import { createJob } from '../printing/helpers.ts';
import { type CompanyOnInstances, companyOnInstances } from '../printing/two-instances.ts';

/**
 * What the printer tests of one dialect share: two instances, a company, its integrator (to
 * queue and read jobs), and the printers' steps.
 */
export interface PrinterCompany extends CompanyOnInstances {
  /** `shopdesk cloudprnt add` on a route of its own: the route, and the settings it printed. */
  addPrinter(
    prefix: string,
    options?: Parameters<typeof addPrinterByCli>[3],
  ): Promise<{ route: string; values: PrinterSettings }>;
  /** `n` cycles of `printer`, through each instance in turn: the two must agree on everything. */
  cycles(printer: CloudPrntPrinter | EpsonSdpPrinter, n: number): Promise<void>;
  /** A job as the API shows it, read through instance two unless `server` is named. */
  job(id: number, server?: TestServer): ReturnType<typeof readJob>;
  /** A job queued on `route` through instance one. */
  queue(route: string): ReturnType<typeof createJob>;
  /** Moves both instances' clocks on by `ms` (on SQLite the one instance's, once). */
  advanceClocks(ms: number): void;
  /**
   * Stops both instances' clocks at the same moment: from then on they move only by
   * `advanceClocks`, so a bound tested to the second holds however slow the machine is.
   */
  stopClocks(): void;
}

/**
 * Starts two instances of `dialect` with a company and its integrator before the tests of the
 * enclosing `describe`, and closes them after (companyOnInstances), with the printers' steps.
 */
export function printerCompany(dialect: TestDialect): PrinterCompany {
  const setup = companyOnInstances(dialect);
  const steps: Omit<PrinterCompany, keyof CompanyOnInstances> = {
    async addPrinter(prefix, options) {
      const route = setup.nextRoute(prefix);
      return {
        route,
        values: await addPrinterByCli(setup.instances, setup.company, route, options),
      };
    },
    cycles: (printer, n) =>
      alternately(setup.instances, n, (server) => printer.through(pathOf(server, printer)).cycle()),
    job: (id, server = setup.instances.two) => readJob(server, setup.integrator, id),
    queue: (route) => queueOn(setup.instances, setup.integrator, route),
    advanceClocks: (ms: number) => {
      for (const server of new Set([setup.one, setup.two])) server.clock.advance(ms);
    },
    stopClocks: () => {
      const at = Date.now();
      for (const server of new Set([setup.one, setup.two])) server.clock.stop(at);
    },
  };
  return Object.assign(setup, steps);
}

/** The settings `shopdesk cloudprnt add` printed, as `URL`, `USER` and `PASSWORD`. */
type PrinterSettings = Record<string, string>;

/** Where `printer` sends its requests on `server`: Star's and Epson's have a path each. */
const pathOf = (server: TestServer, printer: CloudPrntPrinter | EpsonSdpPrinter) =>
  `${server.api}/cloudprnt${printer instanceof EpsonSdpPrinter ? '/epson' : ''}`;

/** A simulated Star printer signing in with `values`, polling `values.URL` unless told. */
export const starPrinter = (
  values: PrinterSettings,
  options: Partial<ConstructorParameters<typeof CloudPrntPrinter>[0]> = {},
) =>
  new CloudPrntPrinter({
    url: values.URL!,
    user: values.USER!,
    password: values.PASSWORD!,
    ...options,
  });

/** A simulated Epson printer signing in with `values`. */
export const epsonPrinter = (
  values: PrinterSettings,
  options: Partial<ConstructorParameters<typeof EpsonSdpPrinter>[0]> = {},
) =>
  new EpsonSdpPrinter({
    url: values.URL!,
    id: values.USER!,
    password: values.PASSWORD!,
    ...options,
  });

/**
 * Runs `request` through `server` and checks it wrote nothing: on PostgreSQL no write was
 * sent but the sweep's (what is due is swept first, and its statements, which its 5 s timer
 * may send again meanwhile, are told apart), on SQLite the database's change count stands.
 * Returns what PostgreSQL was sent (none on SQLite), for the caller's own counts.
 */
export async function expectWritesNothing(
  dialect: TestDialect,
  server: TestServer,
  request: () => Promise<unknown>,
): Promise<string[]> {
  const { sent: swept } = await sentDuring(() => server.app.services.printing.sweep());
  if (dialect === 'postgres') {
    const { sent } = await sentDuring(request);
    const writes = sent.filter((text) => /^\s*(insert|update|delete)\b/i.test(text));
    expect(writes.filter((text) => !swept.includes(text))).toEqual([]);
    return sent;
  }
  const db = server.app.services.storage.db;
  const changes = async () =>
    (await sql<{ n: number }>`select total_changes() as n`.execute(db)).rows[0]!.n;
  const before = await changes();
  await request();
  expect(await changes()).toBe(before);
  return [];
}

/** The command line's database options for the instances' database. */
export const cliDatabase = (instances: Instances): string[] =>
  instances.databaseUrl
    ? ['--database-url', instances.databaseUrl]
    : ['--db', instances.one.dbFile];

/**
 * `shopdesk cloudprnt add` for a printer of the company on `route`: the settings it printed
 * (`URL`, `USER`, `PASSWORD`), the run checked to have succeeded.
 */
export async function addPrinterByCli(
  instances: Instances,
  company: number,
  route: string,
  options: { kind?: 'epson'; name?: string; server?: string } = {},
): Promise<Record<string, string>> {
  const run = await shopdesk(
    'cloudprnt',
    'add',
    ...(options.kind ? ['--kind', options.kind] : []),
    '--company',
    String(company),
    '--route',
    route,
    ...(options.name ? ['--name', options.name] : []),
    ...(options.server ? ['--server', options.server] : []),
    ...cliDatabase(instances),
  );
  expect(run.code, run.stderr).toBe(0);
  return Object.fromEntries(
    run.stdout
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** A job as the API shows it, read through `server` with `token`. */
export const readJob = async (server: TestServer, token: string, id: number) =>
  (await server.request('GET', `/printing/jobs/${id}`, { token })).body.data;

/** A job queued on `route` through instance one. */
export const queueOn = (instances: Instances, token: string, route: string) =>
  createJob(instances.one, token, { route, title: `for ${route}` });

/** `step` run `n` times, through each instance in turn: the two must agree on everything. */
export async function alternately(
  instances: Instances,
  n: number,
  step: (server: TestServer) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < n; i++) await step(i % 2 === 0 ? instances.one : instances.two);
}

import { expect } from 'vitest';
import type { Instances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { shopdesk } from '../helpers/shopdesk-cli.ts';
import { createJob } from '../printing/helpers.ts';

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

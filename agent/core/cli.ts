import { homedir, hostname as osHostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { type PrinterProfile, printerProfileSchema } from '../../shared/printer-profiles.ts';
import { maxBackupPrinters, routeNameSchema } from '../../shared/printing.ts';
import { UsageError } from '../../shared/usage-error.ts';
import {
  type AgentSetup,
  type EnrollingSetup,
  EnrollmentRefused,
  resolveAgentSetup,
  routesOnDefaultPrinter,
} from './agent-setup.ts';
import { agentTokenVariable } from './agent-token.ts';
import type { PrinterBackend } from './printers/backend.ts';
import { isValidCupsPrinterName } from './printers/cups.ts';
import { isDirectPrinter, parseDirectPrinter } from './printers/direct-address.ts';
import { folderPrinterPrefix, isFolderPrinter } from './printers/folder.ts';
import { createPrinterBackend } from './printers/index.ts';
import { isValidWindowsPrinterName } from './printers/windows.ts';
import { AgentRuntime } from './runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from './runtime/runtime-context.ts';
import { StateDirectoryInUse } from './state-lock.ts';
import type { AgentStatus, RuntimeLogLine } from './status.ts';
import { listenForStop } from './stop-request.ts';
import { watchForUpdates } from './update-notice.ts';

/**
 * `shopdesk agent --server URL --route NAME=PRINTER … [--state-dir DIR]`, the token from
 * SHOPDESK_AGENT_TOKEN, `--token-file FILE` or `--token TOKEN` (docs/agent.md, "Running it").
 * The team's CLI parses the flags and calls runAgentCommand; bad arguments throw UsageError,
 * which the CLI prints as one line on stderr with exit code 2.
 */
export interface AgentCommandOptions {
  /** The server; else the config file's `server`. */
  server?: string;
  /** An enrolment code to trade for the agent's token, once (docs/agent.md, "Enrolment"). */
  enroll?: string;
  /** A configuration file instead of the machine-wide one (machine-config.ts). */
  config?: string;
  /** One of token, tokenFile and the environment's SHOPDESK_AGENT_TOKEN (readAgentToken). */
  token?: string;
  tokenFile?: string;
  /** `NAME=PRINTER` as typed; PRINTER is an OS printer name, `folder:DIR` or a direct printer (`socket://HOST[:PORT]`, `usb:///dev/usb/lpN`). */
  route: string[];
  /**
   * `NAME=JSON` as typed: the printer profile of route NAME (docs/templates.md), e.g.
   * `receipts={"language":"escpos","width_mm":80}`.
   */
  profile?: string[];
  stateDir?: string;
  name?: string;
  stdout?: Writable;
  stderr?: Writable;
  /** Ends the agent like SIGTERM does (tests, embedding). */
  signal?: AbortSignal;
  /** Install SIGINT/SIGTERM handlers (default true). */
  handleSignals?: boolean;
  backend?: PrinterBackend;
  /** Extra runtime options (tests shorten backoffs). */
  runtime?: Partial<AgentRuntimeOptions>;
  platform?: NodeJS.Platform;
  /** The environment (default process.env): SHOPDESK_AGENT_TOKEN, the default state folder. */
  env?: Record<string, string | undefined>;
}

/**
 * The exit code of `shopdesk agent` when the server refuses its token (401 or 403): sysexits'
 * EX_NOPERM. A service manager can tell it from a crash and not restart a token that will be
 * refused again (agent/service/shopdesk-agent.service, RestartPreventExitStatus).
 */
export const tokenRefusedExitCode = 77;

/**
 * The exit code when another agent runs on the same state directory (sysexits' EX_TEMPFAIL):
 * a service manager that restarts it takes the directory over once the other one has gone.
 */
export const stateDirInUseExitCode = 75;

/** The route a `--route NAME=PRINTER[,BACKUP…]` argument names. */
export interface RouteArgument {
  name: string;
  printer: string;
  /** The printers after the first, in order (docs/agent.md, "Backup printers"). */
  backup_printers?: string[];
}

/**
 * `receipts=EPSON_TM_T20` → `{name, printer}`; `receipts=Front-1,Front-2` → the first printer
 * and its backups, in order. A printer may itself contain "=" (the first splits), not ",":
 * no CUPS name holds one, no Windows name either.
 */
export function parseRouteArgument(
  value: string,
  platform: NodeJS.Platform = process.platform,
): RouteArgument {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new UsageError(`--route must be NAME=PRINTER, got "${value}"`);
  const name = value.slice(0, equals);
  if (!routeNameSchema.safeParse(name).success) {
    throw new UsageError(
      `route name "${name}" must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-"`,
    );
  }
  const [printer = '', ...backups] = value
    .slice(equals + 1)
    .split(',')
    .map((part) => checkedPrinter(name, part, platform));
  if (backups.length > maxBackupPrinters) {
    throw new UsageError(
      `route ${name}: at most ${maxBackupPrinters + 1} printers, the first and ${maxBackupPrinters} backups`,
    );
  }
  const all = [printer, ...backups];
  const twice = all.find((candidate, at) => all.indexOf(candidate) !== at);
  if (twice !== undefined) throw new UsageError(`route ${name}: printer ${twice} is given twice`);
  return backups.length === 0 ? { name, printer } : { name, printer, backup_printers: backups };
}

/** One printer of a `--route`: checked as its kind requires, a folder's path made absolute. */
function checkedPrinter(name: string, printer: string, platform: NodeJS.Platform): string {
  if (printer === '') {
    throw new UsageError(`route ${name}: a printer name is empty (a comma with nothing beside it)`);
  }
  if (isFolderPrinter(printer)) {
    if (printer.length === folderPrinterPrefix.length) {
      throw new UsageError(
        `route ${name}: folder: needs a directory, as in folder:/var/spool/labels`,
      );
    }
    return `${folderPrinterPrefix}${resolve(printer.slice(folderPrinterPrefix.length))}`;
  }
  if (isDirectPrinter(printer)) {
    // A printer reached directly (docs/agent.md, "Printers reached directly").
    const address = parseDirectPrinter(printer);
    if (typeof address === 'string') throw new UsageError(`route ${name}: ${address}`);
    if (address.kind === 'device' && platform !== 'linux') {
      throw new UsageError(`route ${name}: usb:// device files are read on Linux only`);
    }
    return printer;
  }
  const valid =
    platform === 'win32' ? isValidWindowsPrinterName(printer) : isValidCupsPrinterName(printer);
  if (!valid) throw new UsageError(`route ${name}: "${printer}" is not a valid printer name`);
  return printer;
}

/** `--profile NAME=JSON`: a route's printer profile, checked as the server checks it. */
export function parseProfileArgument(value: string): { name: string; profile: PrinterProfile } {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new UsageError(`--profile must be NAME=JSON, got "${value}"`);
  const name = value.slice(0, equals);
  let json: unknown;
  try {
    json = JSON.parse(value.slice(equals + 1));
  } catch {
    throw new UsageError(`--profile ${name}: not JSON, as in {"language":"escpos","width_mm":80}`);
  }
  const parsed = printerProfileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `--profile ${name}: ${issue?.path.join('.') || 'profile'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return { name, profile: parsed.data };
}

/** Where the agent keeps agent.json, the journal and the outbox when --state-dir is not given. */
export function defaultStateDir(
  platform: NodeJS.Platform = process.platform,
  env: Record<string, string | undefined> = process.env,
): string {
  if (platform === 'win32') {
    return join(env['LOCALAPPDATA'] ?? join(homedir(), 'AppData', 'Local'), 'ShopDesk', 'agent');
  }
  if (platform === 'darwin')
    return join(homedir(), 'Library', 'Application Support', 'ShopDesk', 'agent');
  return join(env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state'), 'shopdesk', 'agent');
}

/**
 * Checks the arguments; throws UsageError before anything is written. The token is the one
 * readAgentToken found (or `options.token`, for callers that have it at hand).
 */
export function agentRuntimeOptionsFrom(
  options: AgentCommandOptions & { token: string; server: string },
  { routesOptional = false }: { routesOptional?: boolean } = {},
): AgentRuntimeOptions {
  const platform = options.platform ?? process.platform;
  let url: URL;
  try {
    url = new URL(options.server);
  } catch {
    throw new UsageError(
      `--server must be a URL such as http://shop-server:8080, got "${options.server}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError('--server must be an http:// or https:// URL');
  }
  if (url.username || url.password || url.search) {
    // Credentials belong in the Authorization header only (docs/reference.md).
    throw new UsageError(
      `--server must not carry credentials or a query; give the token in ${agentTokenVariable} or --token-file`,
    );
  }
  if (options.token.trim() === '') throw new UsageError('--token must not be empty');
  // An enrolled agent given no routes serves those saved for it on the server.
  if (options.route.length === 0 && !routesOptional)
    throw new UsageError('at least one --route NAME=PRINTER is required');
  const routes = options.route.map((value) => parseRouteArgument(value, platform));
  const names = new Set<string>();
  for (const route of routes) {
    if (names.has(route.name)) throw new UsageError(`route ${route.name} is given twice`);
    names.add(route.name);
  }
  for (const value of options.profile ?? []) {
    const { name, profile } = parseProfileArgument(value);
    const route = routes.find((candidate) => candidate.name === name);
    if (!route) throw new UsageError(`--profile names route ${name}, which no --route gives`);
    (route as RouteArgument & { profile?: PrinterProfile }).profile = profile;
  }
  return {
    serverUrl: url.toString().replace(/\/+$/, ''),
    token: options.token.trim(),
    stateDir: resolve(options.stateDir ?? defaultStateDir(platform, options.env ?? process.env)),
    routes,
    ...(options.name ? { agentName: options.name } : {}),
    ...(options.backend ? { backend: options.backend } : {}),
    ...options.runtime,
  };
}

/**
 * Runs the agent until SIGINT/SIGTERM (or `signal`), then stops it cleanly. Prints one line
 * per job printed or failed on stdout, everything else on stderr. Resolves with the exit
 * code: 0 after a stop that was asked for, `tokenRefusedExitCode` when the server refused the
 * token (at start or later: a person must give it a valid one, so it stops rather than knock
 * for ever; the job in hand finishes first and the outbox keeps its reports for the next
 * start). A server that is away or answers 5xx never ends it.
 */
export async function runAgentCommand(options: AgentCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const say: Say = (level, message) =>
    stderr.write(`${new Date().toISOString()} ${level} ${message}\n`);
  const setup = await setupOrExitCode(options, { platform, env, say });
  if (typeof setup === 'number') return setup;
  const runtime = await runtimeFor(options, setup, platform);
  // lp, lpstat and PowerShell inherit the environment; the token has no business there.
  if (env === process.env) delete process.env[agentTokenVariable];
  for (const warning of setup.token.warnings) say('warn', warning);
  for (const note of setup.notes) say('info', note);
  runtime.onLog((line: RuntimeLogLine) => {
    if (line.job) stdout.write(`${line.message}\n`);
    else stderr.write(`${line.at} ${line.level} ${line.message}\n`);
  });

  const stop = listenForStop(options);
  let refused: AgentStatus['refusal'] = null;
  runtime.onStatus((status) => {
    if (status.connection !== 'unauthorized' || refused) return;
    refused = status.refusal ?? { status: 401, message: status.lastError ?? '' };
    stop.request('token refused');
  });

  try {
    await runtime.start();
  } catch (error) {
    stop.dispose();
    if (error instanceof StateDirectoryInUse) return refuseSharedState(error, say);
    throw error;
  }
  const updates = watchForUpdates({
    serverUrl: setup.server,
    token: setup.token.token,
    agentId: () => runtime.status().agentId,
    platform,
    say,
  });
  const reason = await stop.requested;
  updates.stop();
  say('info', `stopping (${reason})`);
  try {
    await runtime.stop();
  } finally {
    stop.dispose();
  }
  if (!refused) return 0;
  say('error', refusalAdvice(refused));
  return tokenRefusedExitCode;
}

type Say = (level: string, message: string) => void;

/**
 * What the agent runs with (resolveAgentSetup), or the exit code when it cannot run: the
 * server refused the enrolment, or another agent holds the state directory.
 */
async function setupOrExitCode(
  options: AgentCommandOptions,
  {
    platform,
    env,
    say,
  }: { platform: NodeJS.Platform; env: Record<string, string | undefined>; say: Say },
): Promise<AgentSetup | number> {
  try {
    return await resolveAgentSetup(
      {
        server: options.server,
        token: options.token,
        tokenFile: options.tokenFile,
        enroll: options.enroll,
        config: options.config,
        route: options.route,
        stateDir: options.stateDir,
        name: options.name,
      },
      {
        platform,
        env,
        defaultStateDir: defaultStateDir(platform, env),
        hostname: osHostname(),
        say,
        ...(options.signal && { signal: options.signal }),
        checkBeforeEnroll: (enrolling) => checkBeforeEnroll(options, enrolling, platform),
      },
    );
  } catch (error) {
    if (error instanceof EnrollmentRefused) {
      say('error', `the server refused the enrolment: ${error.message}`);
      say('error', `exiting with code ${tokenRefusedExitCode} (enrolment refused)`);
      return tokenRefusedExitCode;
    }
    if (error instanceof StateDirectoryInUse) return refuseSharedState(error, say);
    throw error;
  }
}

/**
 * The runtime of this setup, not started. An enrolled agent given no routes maps the routes
 * its enrolment code names on this computer's default printer.
 */
async function runtimeFor(
  options: AgentCommandOptions,
  setup: AgentSetup,
  platform: NodeJS.Platform,
): Promise<AgentRuntime> {
  const onDefaultPrinter = setup.routes.length === 0 && setup.enrolledRoutes.length > 0;
  const backend =
    options.backend ?? (onDefaultPrinter ? createPrinterBackend(platform, {}) : undefined);
  const routes =
    onDefaultPrinter && backend
      ? await routesOnDefaultPrinter(setup.enrolledRoutes, backend)
      : setup.routes;
  return new AgentRuntime(
    agentRuntimeOptionsFrom(
      {
        ...options,
        server: setup.server,
        route: routes,
        // The file's profiles first: a --profile of the same route replaces its.
        profile: [...setup.profiles, ...(options.profile ?? [])],
        stateDir: setup.stateDir,
        ...(setup.name !== undefined && { name: setup.name }),
        token: setup.token.token,
      },
      { routesOptional: setup.enrolled },
    ),
  );
}

/**
 * What to do about a refusal, by its kind: a 401 is the token itself (unknown, expired,
 * revoked); a 403 is a valid token refused one thing (a route its enrolment code does not
 * grant, a missing permission), in the server's words, which name it.
 */
function refusalAdvice(refusal: NonNullable<AgentStatus['refusal']>): string {
  if (refusal.status === 401) {
    return `exiting with code ${tokenRefusedExitCode} (token refused): the server does not accept this token (unknown, expired or revoked); give the agent a valid token with the printing.agent permission, or enrol it with a new code, then start it again`;
  }
  return `exiting with code ${tokenRefusedExitCode} (request refused): the token is valid, but the server refused what the agent asked: ${refusal.message}`;
}

/**
 * The usage checks of a run that trades an enrolment code, made before the trade: a mistake
 * here must not spend the code. The token is not known yet; a stand-in takes its place.
 */
async function checkBeforeEnroll(
  options: AgentCommandOptions,
  enrolling: EnrollingSetup,
  platform: NodeJS.Platform,
): Promise<void> {
  agentRuntimeOptionsFrom(
    {
      ...options,
      server: enrolling.server,
      route: enrolling.routes,
      profile: [...enrolling.profiles, ...(options.profile ?? [])],
      stateDir: enrolling.stateDir,
      token: 'enrolling',
    },
    { routesOptional: true },
  );
  if (enrolling.routes.length > 0) return;
  const backend = options.backend ?? createPrinterBackend(platform, {});
  const printers = await backend.listPrinters().catch(() => []);
  if (!printers.some((printer) => printer.is_default)) {
    throw new UsageError(
      'no --route given, and this computer has no default printer for the routes the enrolment code names: map them with --route NAME=PRINTER (or "routes" in the config file); the code was not used',
    );
  }
}

function refuseSharedState(error: StateDirectoryInUse, say: Say): number {
  say('error', error.message);
  say('error', `exiting with code ${stateDirInUseExitCode} (state directory in use)`);
  return stateDirInUseExitCode;
}

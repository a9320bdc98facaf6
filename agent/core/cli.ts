import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { routeNameSchema } from '../../shared/printing.ts';
import { UsageError } from '../../shared/usage-error.ts';
import type { PrinterBackend } from './printers/backend.ts';
import { isValidCupsPrinterName } from './printers/cups.ts';
import { folderPrinterPrefix, isFolderPrinter } from './printers/folder.ts';
import { isValidWindowsPrinterName } from './printers/windows.ts';
import { AgentRuntime } from './runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from './runtime/runtime-context.ts';
import type { RuntimeLogLine } from './status.ts';

/**
 * `shopdesk agent --server URL --token TOKEN --route NAME=PRINTER … [--state-dir DIR]`
 * (docs/agent.md, "Running it"). The team's CLI parses the flags and calls runAgentCommand;
 * bad arguments throw UsageError, which the CLI prints as one line on stderr with exit code 2.
 */
export interface AgentCommandOptions {
  server: string;
  token: string;
  /** `NAME=PRINTER` as typed; PRINTER is an OS printer name or `folder:DIR`. */
  route: string[];
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
  env?: Record<string, string | undefined>;
}

/** The route a `--route NAME=PRINTER` argument names. */
export interface RouteArgument {
  name: string;
  printer: string;
}

/** `receipts=EPSON_TM_T20` → `{name, printer}`; the printer may itself contain "=". */
export function parseRouteArgument(
  value: string,
  platform: NodeJS.Platform = process.platform,
): RouteArgument {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new UsageError(`--route must be NAME=PRINTER, got "${value}"`);
  const name = value.slice(0, equals);
  const printer = value.slice(equals + 1);
  if (!routeNameSchema.safeParse(name).success) {
    throw new UsageError(
      `route name "${name}" must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-"`,
    );
  }
  if (isFolderPrinter(printer)) {
    if (printer.length === folderPrinterPrefix.length) {
      throw new UsageError(
        `route ${name}: folder: needs a directory, as in folder:/var/spool/labels`,
      );
    }
    return {
      name,
      printer: `${folderPrinterPrefix}${resolve(printer.slice(folderPrinterPrefix.length))}`,
    };
  }
  const valid =
    platform === 'win32' ? isValidWindowsPrinterName(printer) : isValidCupsPrinterName(printer);
  if (!valid) throw new UsageError(`route ${name}: "${printer}" is not a valid printer name`);
  return { name, printer };
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

/** Checks the arguments; throws UsageError before anything is written. */
export function agentRuntimeOptionsFrom(options: AgentCommandOptions): AgentRuntimeOptions {
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
      '--server must not carry credentials or a query; pass the token with --token',
    );
  }
  if (options.token.trim() === '') throw new UsageError('--token is required');
  if (options.route.length === 0)
    throw new UsageError('at least one --route NAME=PRINTER is required');
  const routes = options.route.map((value) => parseRouteArgument(value, platform));
  const names = new Set<string>();
  for (const route of routes) {
    if (names.has(route.name)) throw new UsageError(`route ${route.name} is given twice`);
    names.add(route.name);
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
 * per job printed or failed on stdout, everything else on stderr. Resolves with the exit code.
 */
export async function runAgentCommand(options: AgentCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const runtime = new AgentRuntime(agentRuntimeOptionsFrom(options));
  runtime.onLog((line: RuntimeLogLine) => {
    if (line.job) stdout.write(`${line.message}\n`);
    else stderr.write(`${line.at} ${line.level} ${line.message}\n`);
  });

  const listeners: Array<[NodeJS.Signals, () => void]> = [];
  const stopRequested = new Promise<string>((resolveStop) => {
    if (options.signal?.aborted) resolveStop('abort');
    options.signal?.addEventListener('abort', () => resolveStop('abort'), { once: true });
    if (options.handleSignals === false) return;
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      const onSignal = () => {
        if (stopping) {
          // A second signal means "now": the journal covers a job cut off mid-print.
          process.exit(130);
        }
        stopping = true;
        resolveStop(name);
      };
      process.on(name, onSignal);
      listeners.push([name, onSignal]);
    }
  });
  let stopping = false;

  await runtime.start();
  const reason = await stopRequested;
  stderr.write(`${new Date().toISOString()} info stopping (${reason})\n`);
  try {
    await runtime.stop();
  } finally {
    for (const [name, listener] of listeners) process.off(name, listener);
  }
  return 0;
}

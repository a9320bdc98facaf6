import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  type MachineConfig,
  MachineConfigError,
  machineConfigPath,
  parseMachineConfig,
} from '../../core/machine-config.ts';
import { printerByRouteSchema, serverUrlSchema, tokenSchema } from '../common/ipc-schemas.ts';
import { hiddenFlag } from './start-at-login.ts';

/**
 * How IT pre-configures the agent on many PCs (docs/it-guide.md): a JSON file at a machine-wide
 * path, or flags on the command line. Both are read once at start-up, here and nowhere else.
 */
export interface Provisioning {
  serverUrl?: string;
  token?: string;
  /** Traded for the token at the first start (enroll.ts). */
  enrollmentCode?: string;
  updateChannel?: string;
  routes?: Record<string, string>;
  startAtLogin?: boolean;
  autoUpdate?: boolean;
}

export interface LaunchOptions {
  /** Started by the login item: stay in the tray. */
  hidden: boolean;
  /** From --server/--token/--route: applied at every start that passes them. */
  flags: Provisioning;
  /** The file at --config, or the machine-wide path; null when there is none. */
  configFile: string | null;
  problems: string[];
}

/** Where the machine-wide pre-configuration lives on each OS (the headless agent's too). */
export { machineConfigPath };

/**
 * Reads our flags out of argv. Chromium and Electron flags may sit beside them, so unknown
 * options are let through rather than refused.
 */
export function parseLaunchArguments(
  args: readonly string[],
  defaultConfigFile: string,
): LaunchOptions {
  const { values } = parseArgs({
    args: [...args],
    strict: false,
    allowPositionals: true,
    options: {
      server: { type: 'string' },
      token: { type: 'string' },
      route: { type: 'string', multiple: true },
      config: { type: 'string' },
      hidden: { type: 'boolean' },
      'auto-update': { type: 'boolean' },
    },
  });
  const problems: string[] = [];
  const flags: Provisioning = {};

  if (typeof values.server === 'string') {
    const server = serverUrlSchema.safeParse(values.server);
    if (server.success) flags.serverUrl = server.data;
    else problems.push(`--server: ${server.error.issues[0]?.message}`);
  }
  if (typeof values.token === 'string') {
    const token = tokenSchema.safeParse(values.token);
    if (token.success) flags.token = token.data;
    else problems.push('--token: the token is one word of printable characters.');
  }
  if (Array.isArray(values.route)) {
    // All or nothing: half a route list would leave some documents without a printer.
    const pairs: Record<string, string> = {};
    let malformed = false;
    for (const route of values.route) {
      const at = typeof route === 'string' ? route.indexOf('=') : -1;
      if (typeof route !== 'string' || at <= 0) {
        problems.push(`--route ${String(route)}: write it as NAME=PRINTER`);
        malformed = true;
        continue;
      }
      pairs[route.slice(0, at)] = route.slice(at + 1);
    }
    const routes = printerByRouteSchema.safeParse(pairs);
    if (!routes.success) problems.push(`--route: ${routes.error.issues[0]?.message}`);
    else if (!malformed) flags.routes = routes.data;
  }

  if (values['auto-update'] === true) flags.autoUpdate = true;

  return {
    hidden: values.hidden === true || args.includes(hiddenFlag),
    flags,
    configFile: typeof values.config === 'string' ? values.config : defaultConfigFile,
    problems,
  };
}

/**
 * Reads the machine-wide configuration (agent/core/machine-config.ts, the headless agent's
 * too); a missing file is no file, a bad one is a problem naming the file, the fields and the
 * fixes. `tokenFile` is read here: the token goes into the encrypted settings like any other.
 */
export function readProvisioningFile(
  path: string,
  read: (path: string) => string = (file) => readFileSync(file, 'utf8'),
): { provisioning: Provisioning | null; problem: string | null } {
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { provisioning: null, problem: null };
    return { provisioning: null, problem: `${path} cannot be read: ${(error as Error).message}` };
  }
  let config: MachineConfig;
  try {
    config = parseMachineConfig(path, text);
  } catch (error) {
    if (error instanceof MachineConfigError) {
      return { provisioning: null, problem: error.problems.join(' ') };
    }
    throw error;
  }
  let token = config.token;
  if (config.tokenFile !== undefined) {
    try {
      token = read(config.tokenFile).replace(/(\r?\n)+$/, '');
    } catch (error) {
      return {
        provisioning: null,
        problem: `${path}: tokenFile: ${config.tokenFile} cannot be read (${(error as Error).message}); let this account read it`,
      };
    }
  }
  const { server, enrollmentCode, routes, startAtLogin, autoUpdate, updateChannel } = config;
  return {
    provisioning: {
      ...(server !== undefined && { serverUrl: server }),
      ...(token !== undefined && { token }),
      ...(enrollmentCode !== undefined && { enrollmentCode }),
      // The tray keeps a route's printers as one comma list: the first, then its backups.
      ...(routes !== undefined && {
        routes: Object.fromEntries(
          Object.entries(routes).map(([name, printer]) => [
            name,
            typeof printer === 'string' ? printer : printer.join(','),
          ]),
        ),
      }),
      ...(startAtLogin !== undefined && { startAtLogin }),
      ...(autoUpdate !== undefined && { autoUpdate }),
      ...(updateChannel !== undefined && { updateChannel }),
    },
    problem: null,
  };
}

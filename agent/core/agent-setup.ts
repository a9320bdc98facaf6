import { UsageError } from '../../shared/usage-error.ts';
import { type AgentToken, agentTokenVariable, readAgentToken } from './agent-token.ts';
import {
  EnrollmentRefused,
  enrolledTokenFile,
  readEnrolledToken,
  redeemEnrollmentCode,
} from './enrollment.ts';
import {
  type MachineConfig,
  MachineConfigError,
  machineConfigPath,
  readMachineConfig,
} from './machine-config.ts';
import type { PrinterBackend } from './printers/backend.ts';
import { acquireStateLock, privateStateDir } from './state-lock.ts';

/**
 * What `shopdesk agent` runs with, from its flags, the machine-wide configuration file and
 * its state directory, flags first (docs/agent.md, "Where the settings come from"). The token:
 * SHOPDESK_AGENT_TOKEN, --token-file or --token (exactly one); else the config file's
 * tokenFile; else the token this state directory got at its enrolment; else an enrolment
 * with --enroll CODE or the file's enrollmentCode, once.
 */
export interface SetupFlags {
  server?: string | undefined;
  token?: string | undefined;
  tokenFile?: string | undefined;
  enroll?: string | undefined;
  config?: string | undefined;
  route: string[];
  stateDir?: string | undefined;
  name?: string | undefined;
}

export interface AgentSetup {
  server: string;
  routes: string[];
  /** `NAME=JSON` printer profiles of the config file's routes (none when --route is given). */
  profiles: string[];
  stateDir: string;
  name?: string | undefined;
  token: AgentToken;
  /** Lines for stderr at start (info). */
  notes: string[];
  /** Routes the enrolment code names, to map on the default printer when none are given. */
  enrolledRoutes: string[];
  /** The token is this state directory's own, from an enrolment. */
  enrolled: boolean;
}

/** What the agent would run with, as known before the enrolment trades its code. */
export type EnrollingSetup = Pick<
  AgentSetup,
  'server' | 'routes' | 'profiles' | 'stateDir' | 'name' | 'notes'
>;

/** A problem of the config file, as a usage error of one line per problem. */
function configUsage(error: MachineConfigError): UsageError {
  // Each problem names the file, the field and the fix: --help knows none of them.
  return new UsageError(error.problems.join('\nerror: '), { pointsToHelp: false });
}

export async function loadMachineConfig(
  flags: SetupFlags,
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
): Promise<{ config: MachineConfig; file: string | null }> {
  const file = flags.config ?? machineConfigPath(platform, env);
  try {
    const config = await readMachineConfig(file, { required: flags.config !== undefined });
    return { config: config ?? {}, file: config ? file : null };
  } catch (error) {
    if (error instanceof MachineConfigError) throw configUsage(error);
    throw error;
  }
}

/** How resolveAgentSetup reaches the world: the machine, its name and the person watching. */
export interface SetupOptions {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  defaultStateDir: string;
  hostname: string;
  say: (level: string, message: string) => void;
  signal?: AbortSignal;
  /**
   * Checks what the agent would run with, before a code is traded: a usage error (a bad
   * route, no printer for the code's routes) must leave the code unspent.
   */
  checkBeforeEnroll?: (setup: EnrollingSetup) => Promise<void>;
}

export async function resolveAgentSetup(
  flags: SetupFlags,
  options: SetupOptions,
): Promise<AgentSetup> {
  const { platform, env } = options;
  const { config, file } = await loadMachineConfig(flags, platform, env);
  const server = flags.server ?? config.server;
  if (server === undefined) {
    const from = file ? ` (or "server" in ${file})` : '';
    throw new UsageError(
      `no server: pass --server URL${from || ' or set "server" in the config file'}`,
    );
  }
  const stateDir = flags.stateDir ?? config.stateDir ?? options.defaultStateDir;
  const notes = file ? [`read the configuration ${file}`] : [];
  const base: EnrollingSetup = {
    server,
    ...routesAndProfiles(flags, config),
    stateDir,
    name: flags.name ?? config.name,
    notes,
  };
  const given = await givenToken(flags, config, env, platform);
  if (given) return { ...base, token: given, enrolledRoutes: [], enrolled: false };
  const code = flags.enroll ?? config.enrollmentCode;
  const stored = await readEnrolledToken(stateDir);
  if (stored !== null) {
    if (code !== undefined) {
      notes.push(
        `enrolled already (the token is in ${enrolledTokenFile(stateDir)}): the enrolment code is not used again; to enrol this computer again with a code made for it, delete that file first`,
      );
    }
    return { ...base, token: { token: stored, warnings: [] }, enrolledRoutes: [], enrolled: true };
  }
  if (code === undefined) {
    throw new UsageError(
      `no token: set ${agentTokenVariable}, pass --token-file FILE, or enrol this agent with --enroll CODE (from shopdesk enrollment create)`,
    );
  }
  return enrolOnce(base, code, options);
}

/** The routes as `NAME=PRINTER[,BACKUP…]` and their profiles: the flags' or else the file's. */
function routesAndProfiles(
  flags: SetupFlags,
  config: MachineConfig,
): { routes: string[]; profiles: string[] } {
  // The file's profiles go with the file's routes: routes on the command line replace both.
  if (flags.route.length > 0) return { routes: flags.route, profiles: [] };
  return {
    routes: Object.entries(config.routes ?? {}).map(
      // A list is the first printer and its backups, in order: --route's comma form.
      ([name, printer]) => `${name}=${typeof printer === 'string' ? printer : printer.join(',')}`,
    ),
    profiles: Object.entries(config.profiles ?? {}).map(
      ([name, profile]) => `${name}=${JSON.stringify(profile)}`,
    ),
  };
}

/**
 * The token given to the agent rather than got by enrolment: the environment's, --token-file's
 * or --token's (exactly one), else the config file's; null when none is given.
 */
async function givenToken(
  flags: SetupFlags,
  config: MachineConfig,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform,
): Promise<AgentToken | null> {
  const fromEnv = env[agentTokenVariable];
  const explicit =
    (fromEnv !== undefined && fromEnv !== '') ||
    flags.tokenFile !== undefined ||
    flags.token !== undefined;
  if (explicit && flags.enroll !== undefined) {
    throw new UsageError(
      `give either --enroll CODE or a token (${agentTokenVariable}, --token-file, --token), not both`,
    );
  }
  if (explicit) {
    return readAgentToken({ token: flags.token, tokenFile: flags.tokenFile, env, platform });
  }
  if (config.tokenFile !== undefined) {
    return readAgentToken({ tokenFile: config.tokenFile, env: {}, platform });
  }
  if (config.token !== undefined) return { token: config.token, warnings: [] };
  return null;
}

/**
 * Trades the enrolment code for this state directory's token, once. One agent enrols a state
 * directory: a second one started at once waits its turn here and then finds the token the
 * first one kept.
 */
async function enrolOnce(
  base: EnrollingSetup,
  code: string,
  options: SetupOptions,
): Promise<AgentSetup> {
  const { server, routes, stateDir, notes } = base;
  await privateStateDir(stateDir);
  const release = await acquireStateLock(stateDir);
  try {
    const again = await readEnrolledToken(stateDir);
    if (again !== null) {
      return { ...base, token: { token: again, warnings: [] }, enrolledRoutes: [], enrolled: true };
    }
    await options.checkBeforeEnroll?.(base);
    const redeemed = await redeemEnrollmentCode({
      serverUrl: server,
      code,
      stateDir,
      hostname: options.hostname,
      // The names of `NAME=PRINTER`, checked by checkBeforeEnroll (the CLI's parseRouteArgument).
      routes: routes.map((route) => route.slice(0, route.indexOf('='))),
      onWait: (message) => options.say('warn', message),
      ...(options.signal && { signal: options.signal }),
    });
    notes.push(
      `enrolled as agent ${redeemed.agent_id} of ${redeemed.company.name}; the token is kept in ${enrolledTokenFile(stateDir)}`,
    );
    return {
      ...base,
      token: { token: redeemed.token, warnings: [] },
      enrolledRoutes: redeemed.routes,
      enrolled: true,
    };
  } finally {
    await release();
  }
}

/**
 * The routes an enrolment code names, each on this computer's default printer, for an agent
 * given no routes of its own. No default printer: a usage error that says how to map them.
 */
export async function routesOnDefaultPrinter(
  names: string[],
  backend: PrinterBackend,
): Promise<string[]> {
  const printers = await backend.listPrinters().catch(() => []);
  const fallback = printers.find((printer) => printer.is_default);
  if (!fallback) {
    throw new UsageError(
      `the enrolment code names the routes ${names.join(', ')}, but this computer has no default printer: map them with --route NAME=PRINTER or "routes" in the config file`,
    );
  }
  return names.map((name) => `${name}=${fallback.name}`);
}

export { EnrollmentRefused };

import type { RedeemedEnrollment } from '../../../shared/enrollments.ts';
import type { PrinterInfo } from '../../../shared/printing.ts';
import type { AgentControl } from '../../core/status.ts';
import type { ActionResult, AppSnapshot, SettingsPatch } from '../common/ipc.ts';
import type { AgentSettings } from './agent-settings.ts';
import { type AgentSupervisor, errorMessage } from './agent-supervisor.ts';
import { testServerConnection } from './connection-test.ts';
import { enrollTray, looksLikeEnrollmentCode } from './enroll.ts';
import type { InvokeHandlers } from './ipc-handlers.ts';

export interface AgentActionsDeps {
  settings: Pick<AgentSettings, 'apply' | 'view' | 'token' | 'connectionConfig' | 'routes'>;
  /** Trades an enrolment code for the agent's token (the core's redeemEnrollmentCode). */
  redeemEnrollment?: (serverUrl: string, code: string) => Promise<RedeemedEnrollment>;
  /** The computer's default printer, for the routes an enrolment code names. */
  defaultPrinter?: () => Promise<string | null>;
  supervisor: AgentSupervisor;
  logFilePath: string;
  /** The OS's printers when the core is not running yet (Electron's getPrintersAsync). */
  listSystemPrinters: () => Promise<PrinterInfo[]>;
  openPath: (path: string) => Promise<string>;
  applyStartAtLogin: (enabled: boolean) => void;
  /** Called after settings change, to refresh the tray and the window. */
  onSettingsChanged: () => void;
  fetchImpl?: typeof fetch;
}

/**
 * What the window's buttons and the tray's menu items do. Failures come back as
 * `{ ok: false, message }` in words for shop staff, and go to the log too.
 */
export function createAgentActions(deps: AgentActionsDeps): InvokeHandlers {
  const { settings, supervisor } = deps;
  const withAgent = (
    what: string,
    run: (control: AgentControl) => Promise<void> | void,
    done: string,
  ) => runOnAgent(supervisor, what, run, done);

  return {
    'app:get-snapshot': (): AppSnapshot => ({
      settings: settings.view(),
      status: supervisor.status(),
      logTail: supervisor.logTail(),
      logFile: deps.logFilePath,
    }),

    'settings:save': (asked: SettingsPatch) => saveSettings(deps, asked),

    'settings:test-connection': async (request): Promise<ActionResult> => {
      const token = request.token ?? settings.token();
      if (token === null) return { ok: false, message: 'Enter the token first.' };
      const result = await testServerConnection(
        { serverUrl: request.serverUrl, token },
        deps.fetchImpl,
      );
      supervisor.log(result.ok ? 'info' : 'warn', `Connection test: ${result.message}`);
      return result;
    },

    'printers:list': async (): Promise<PrinterInfo[]> => {
      const control = supervisor.control;
      try {
        if (control) return await control.listPrinters();
      } catch (error) {
        supervisor.log('warn', `The agent could not list printers: ${errorMessage(error)}`);
      }
      return deps.listSystemPrinters();
    },

    'jobs:retry': (jobId: number) =>
      withAgent(
        `Retry of job #${jobId}`,
        (control) => control.retry(jobId),
        `Job #${jobId} is queued again.`,
      ),

    'jobs:reprint': (jobId: number) =>
      withAgent(
        `Reprint of job #${jobId}`,
        (control) => control.reprint(jobId),
        `Job #${jobId} is queued for a reprint.`,
      ),

    'jobs:test-print': (route: string) =>
      withAgent(
        `Test print on ${route}`,
        (control) => control.testPrint(route),
        `Test page sent to ${route}.`,
      ),

    'agent:pause': () => withAgent('Pause', (control) => control.pause(), 'Printing paused.'),

    'agent:resume': () => withAgent('Resume', (control) => control.resume(), 'Printing resumed.'),

    'logs:open': async (): Promise<ActionResult> => {
      const problem = await deps.openPath(deps.logFilePath);
      return problem ? { ok: false, message: `Cannot open the log: ${problem}` } : { ok: true };
    },
  };
}

/** Runs an action on the running agent, and says in words how it went. */
async function runOnAgent(
  supervisor: AgentSupervisor,
  what: string,
  run: (control: AgentControl) => Promise<void> | void,
  done: string,
): Promise<ActionResult> {
  const control = supervisor.control;
  if (!control)
    return { ok: false, message: 'The agent is not running: save the server and token first.' };
  try {
    await run(control);
    supervisor.log('info', done);
    return { ok: true, message: done };
  } catch (error) {
    const message = `${what} failed: ${errorMessage(error)}`;
    supervisor.log('error', message);
    return { ok: false, message };
  }
}

/**
 * Saves the settings the window sends; a token that is an enrolment code is first traded for
 * the agent's token (and the routes the code names).
 */
async function saveSettings(deps: AgentActionsDeps, asked: SettingsPatch): Promise<ActionResult> {
  const { settings, supervisor } = deps;
  const redeemed = await redeemIfEnrollmentCode(deps, asked);
  if ('ok' in redeemed) return redeemed;
  const { patch, enrolled } = redeemed;
  try {
    settings.apply(patch);
    if (patch.startAtLogin !== undefined) deps.applyStartAtLogin(patch.startAtLogin);
  } catch (error) {
    supervisor.log('error', `Settings not saved: ${errorMessage(error)}`);
    return { ok: false, message: `Settings not saved: ${errorMessage(error)}` };
  }
  const changed = Object.keys(patch).filter((key) => key !== 'token');
  supervisor.log(
    'info',
    `Settings saved (${[...changed, ...(patch.token !== undefined ? ['token'] : [])].join(', ')}).`,
  );
  deps.onSettingsChanged();
  if (
    patch.serverUrl !== undefined ||
    patch.token !== undefined ||
    patch.routes !== undefined ||
    patch.profiles !== undefined
  ) {
    await supervisor.configure(settings.connectionConfig());
  }
  if (enrolled) supervisor.log('info', enrolled);
  return { ok: true, message: enrolled ?? 'Saved.' };
}

/**
 * The patch to save: as asked, or, when its token is an enrolment code, with the token and
 * routes the code gives and the words that say so; a failure in words otherwise.
 */
async function redeemIfEnrollmentCode(
  deps: AgentActionsDeps,
  asked: SettingsPatch,
): Promise<{ patch: SettingsPatch; enrolled: string | null } | ActionResult> {
  const { settings, supervisor } = deps;
  if (asked.token === undefined || !looksLikeEnrollmentCode(asked.token)) {
    return { patch: asked, enrolled: null };
  }
  const serverUrl = asked.serverUrl ?? settings.view().serverUrl;
  if (!serverUrl || !deps.redeemEnrollment) {
    return { ok: false, message: 'Enter the server address before the enrolment code.' };
  }
  try {
    const enrollment = await enrollTray({
      serverUrl,
      code: asked.token,
      currentRoutes: settings.routes(),
      redeem: deps.redeemEnrollment,
      defaultPrinter: deps.defaultPrinter ?? (async () => null),
    });
    const patch = {
      ...asked,
      token: enrollment.token,
      ...(enrollment.routes && { routes: enrollment.routes }),
    };
    return { patch, enrolled: enrollment.message };
  } catch (error) {
    const message = `Enrolment failed: ${errorMessage(error)}`;
    supervisor.log('error', message);
    return { ok: false, message };
  }
}

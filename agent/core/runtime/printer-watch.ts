import { type PrinterInfo, printerInfoSchema } from '../../../shared/printing.ts';
import { routePrinterNames } from '../../../shared/wait-reasons.ts';
import { sleep } from '../backoff.ts';
import { describeNotReady, printerReadiness } from '../printer-readiness.ts';
import { defaultPrinterCheckMs, isFolderPrinter } from '../printers/index.ts';
import type { NotReadyPrinter } from '../status.ts';
import type { RuntimeContext } from './runtime-context.ts';

/** The contract takes at most this many printers per agent. */
const maxPrinters = 500;

/**
 * The printers with their state, as the contract takes them: each valid, each name once, at
 * most 500. The routes' printers are passed on for the folder back-end.
 */
export async function readPrinters(context: RuntimeContext, fresh = false): Promise<PrinterInfo[]> {
  const routed = [...new Set(context.routes.flatMap(routePrinterNames))];
  const printers: PrinterInfo[] = [];
  for (const listed of await context.backend.listPrinters(routed, fresh)) {
    const parsed = printerInfoSchema.safeParse(listed);
    if (!parsed.success || printers.some((printer) => printer.name === parsed.data.name)) continue;
    printers.push(parsed.data);
    if (printers.length === maxPrinters) break;
  }
  return printers;
}

/**
 * Reads the printers and takes the reading (the status, the lines, the spooler's state);
 * returns whether the printers changed, which the heartbeat reports early.
 */
export async function refreshPrinters(context: RuntimeContext, fresh = false): Promise<boolean> {
  const printers = await readPrinters(context, fresh);
  await noteSpooler(context, printers);
  return notePrinters(context, printers);
}

/**
 * When an enabled route's printer is missing from the system's list, asks the back-end
 * whether its spooler runs at all (CUPS stopped: nothing is listed). One line when a problem
 * appears, one when it is gone; said before the printers' own lines, which it explains.
 */
async function noteSpooler(context: RuntimeContext, printers: PrinterInfo[]): Promise<void> {
  const { backend, status } = context;
  const missing = context.routes.some(
    (route) =>
      route.enabled &&
      routePrinterNames(route).some(
        (name) => !isFolderPrinter(name) && !printers.some((printer) => printer.name === name),
      ),
  );
  const problem = missing ? ((await backend.spoolerProblem?.().catch(() => null)) ?? null) : null;
  if (problem === context.spoolerProblem) return;
  if (problem !== null) {
    status.log('warn', `${problem}: the routes' printers cannot print until it runs`);
  } else if (context.spoolerProblem !== null) {
    status.log('info', `the spooler runs again (was: ${context.spoolerProblem})`);
  }
  context.spoolerProblem = problem;
}

function routesText(routes: string[]): string {
  return `${routes.length === 1 ? 'route' : 'routes'} ${routes.join(', ')}`;
}

/**
 * Takes a fresh read of the printers: the status shows them, and the printers of enabled
 * routes that stopped or came back get one log line each (not one per check). A routed
 * printer the system no longer lists counts as not ready. Returns whether the printers
 * changed, which the heartbeat reports early.
 */
export function notePrinters(context: RuntimeContext, printers: PrinterInfo[]): boolean {
  const { status } = context;
  const changed = JSON.stringify(printers) !== JSON.stringify(status.state.printers);
  status.state.printers = printers;

  const routesByPrinter = new Map<string, string[]>();
  for (const route of context.routes) {
    if (!route.enabled) continue;
    for (const name of routePrinterNames(route)) {
      routesByPrinter.set(name, [...(routesByPrinter.get(name) ?? []), route.name]);
    }
  }
  const before = new Map(status.state.notReady.map((entry) => [entry.printer.name, entry]));
  const now = status.now();
  const notReady: NotReadyPrinter[] = [];
  for (const [name, routes] of routesByPrinter) {
    const printer = printers.find((candidate) => candidate.name === name);
    if (printer && printerReadiness(printer) !== 'not-ready') continue;
    const entry: NotReadyPrinter = {
      printer: printer ?? {
        name,
        is_default: false,
        state: 'unknown',
        reasons: [],
        accepting_jobs: null,
        message: null,
      },
      listed: printer !== undefined,
      routes,
      since: before.get(name)?.since ?? now.toISOString(),
    };
    if (!before.has(name)) {
      status.log(
        'warn',
        `printer ${name} (${routesText(routes)}) is not ready: ${describeNotReady(entry)}`,
      );
    }
    notReady.push(entry);
  }
  for (const [name, entry] of before) {
    const printer = printers.find((candidate) => candidate.name === name);
    const routes = routesByPrinter.get(name);
    if (!routes || !printer || printerReadiness(printer) !== 'ready') continue;
    const seconds = Math.round((now.getTime() - Date.parse(entry.since)) / 1000);
    status.log(
      'info',
      `printer ${name} (${routesText(routes)}) is ready again (was not ready for ${seconds} s)`,
    );
  }
  const notReadyChanged = JSON.stringify(notReady) !== JSON.stringify(status.state.notReady);
  status.state.notReady = notReady;
  // A poll loop holding because no route could print looks again (poll-loop.ts).
  if (changed || notReadyChanged) context.pollWakeup.wake();
  if (changed || notReadyChanged) status.emit();
  return changed;
}

/**
 * Reads the printers every `printerCheckMs` (5 s, 15 s on Windows). A change wakes the
 * heartbeat loop, which reports it early. A failed read keeps the last list and is logged
 * once until a read succeeds again.
 */
export async function printerWatchLoop(
  context: RuntimeContext,
  signal: AbortSignal,
): Promise<void> {
  const { status } = context;
  const intervalMs = context.options.printerCheckMs ?? defaultPrinterCheckMs();
  let failing = false;
  while (!signal.aborted) {
    await sleep(intervalMs, signal).catch(() => {});
    if (signal.aborted) return;
    let changed: boolean;
    try {
      changed = await refreshPrinters(context);
    } catch (error) {
      if (!failing) status.log('warn', `could not read the printers: ${(error as Error).message}`);
      failing = true;
      continue;
    }
    if (failing) status.log('info', 'the printers can be read again');
    failing = false;
    if (changed) context.heartbeatWakeup.wake();
  }
}

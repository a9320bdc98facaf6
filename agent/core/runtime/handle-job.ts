import { createHash } from 'node:crypto';
import type { ClaimedJob, PrintRoute } from '../../../shared/printing.ts';
import {
  printerCanPrint,
  routePrinterNames,
  type WaitReason,
} from '../../../shared/wait-reasons.ts';
import type { OutboxReport } from '../outbox.ts';
import type { PrintFailureCode, PrintOutcome } from '../printers/backend.ts';
import { announceJobResult } from './job-lines.ts';
import { routeWaits } from './printable-routes.ts';
import { refreshPrinters } from './printer-watch.ts';
import { rememberJob } from './recent-jobs.ts';
import { adoptServerRoutes } from './route-sync.ts';
import type { RuntimeContext } from './runtime-context.ts';

/**
 * Prints one claimed job and leaves its report in the outbox: a confirm, an error, or a
 * give-back when its printer cannot print now (the server queues it again). Be careful about what can
 * throw here: whatever happens, the job must end up reported, or journalled as spooling.
 *
 * Order (what makes it at-most-once): journal `spooling` → spooler → journal `printed|failed`
 * → outbox → journal entry removed. A crash anywhere leaves enough on disk to report the job,
 * and never to print it again.
 */
export async function handleJob(context: RuntimeContext, job: ClaimedJob): Promise<void> {
  const { status, inHand, outbox } = context;
  const started = performance.now();
  const route = await servedRoute(context, job);
  // The first of the route's printers that can print by the last reading (backups after it).
  let printer =
    route === undefined ? null : (printerToTry(context, route, new Set()) ?? route.printer);
  inHand.add(job.id);
  status.state.printing = inHand.size;
  rememberJob(status, {
    id: job.id,
    route: job.route,
    title: job.title,
    status: 'printing',
    printer,
    error: null,
  });

  let outcome: PrintOutcome;
  /** Set when the job goes back to the queue unprinted: its printer cannot print now. */
  let giveBack: WaitReason | null = null;
  const waits = route === undefined ? null : routeWaits(context, route);
  let journalled = false;
  const document = Buffer.from(job.document.content_base64, 'base64');
  const digest = createHash('sha256').update(document).digest('hex');
  try {
    const refusedRoute = route === undefined ? context.refusedRoutes.get(job.route) : undefined;
    if (refusedRoute !== undefined) {
      // A printer only this PC's own configuration may name: never written (server-routes.ts).
      outcome = refuse('invalid_printer', refusedRoute);
    } else if (route === undefined || printer === null) {
      outcome = refuse('no_route', `this agent has no enabled route named ${job.route}`);
    } else if (
      document.length !== job.document.size ||
      digest !== job.document.sha256.toLowerCase()
    ) {
      // Never print a document that is not what the integrator sent.
      outcome = refuse('document_mismatch', 'the document does not match its size and sha256');
    } else if (waits !== null) {
      // Claimed just as the printer stopped (the claim was asked before the agent saw it):
      // never handed to the spooler, so giving it back cannot print it twice.
      giveBack = waits;
      outcome = refuse('printer_stopped', waits.message);
    } else {
      ({ outcome, printer, giveBack } = await printOnRoute(context, job, document, route, printer));
      journalled = true;
    }
    await outbox.add(jobReport(job, outcome, giveBack, context.now().toISOString()));
    if (journalled) await context.journal.remove(job.id);
  } catch (error) {
    // The disk refused the journal or the outbox. If the journal says spooling, the next
    // start reports the job; if nothing was spooled, the lease expiry reports it.
    status.log(
      'error',
      `job ${job.id}: could not record its progress: ${(error as Error).message}`,
    );
    inHand.delete(job.id);
    status.state.printing = inHand.size;
    status.emit();
    return;
  }

  inHand.delete(job.id);
  status.state.printing = inHand.size;
  status.state.pendingReports = outbox.size;
  announceJobResult(status, {
    jobId: job.id,
    route: job.route,
    title: job.title,
    printer,
    result: outcome.ok ? 'printed' : giveBack !== null ? 'queued' : 'failed',
    ms: Math.round(performance.now() - started),
    error: outcome.ok
      ? null
      : giveBack !== null
        ? { code: giveBack.code, message: `given back unprinted: ${giveBack.message}` }
        : { code: outcome.code, message: outcome.message },
  });
  context.outboxWakeup.wake();
}

/** The enabled route the job names, read again from the server when the agent lacks it. */
async function servedRoute(
  context: RuntimeContext,
  job: ClaimedJob,
): Promise<PrintRoute | undefined> {
  const served = () =>
    context.routes.find((candidate) => candidate.name === job.route && candidate.enabled);
  if (served() === undefined && !context.refusedRoutes.has(job.route)) {
    // A route added in the console reaches the agent's long-poll at once, its next heartbeat
    // a little later: read the routes now rather than fail the job (route-sync.ts).
    await adoptServerRoutes(context, AbortSignal.timeout(10_000)).catch(() => {});
  }
  return served();
}

/** What printing on a route came to, on the printer last tried. */
interface RoutePrinting {
  outcome: PrintOutcome;
  printer: string;
  /** Set when the job goes back to the queue unprinted: its printer cannot print now. */
  giveBack: WaitReason | null;
}

/**
 * Journals the job as spooling and hands it to the route's printers in turn, until one prints
 * it or says something may have come out; journals how it ended.
 */
async function printOnRoute(
  context: RuntimeContext,
  job: ClaimedJob,
  document: Buffer,
  route: PrintRoute,
  first: string,
): Promise<RoutePrinting> {
  const { journal, status } = context;
  let printer = first;
  let giveBack: WaitReason | null = null;
  let outcome: PrintOutcome;
  const options = { ...route.options, ...job.options };
  const tried = new Set<string>();
  let entry = await journal.beginSpooling(
    { job_id: job.id, route: job.route, title: job.title, printer },
    context.now(),
  );
  for (;;) {
    tried.add(printer);
    outcome = await context.backend
      .print(job, document, printer, options)
      .catch((error: unknown) => refuse('printer_error', (error as Error).message));
    // Never two copies: only a printer that says nothing came out (`printed: 'no'`) lets
    // the job go to the next one. `unknown` (bytes sent, never confirmed) fails it for a
    // person to look at the printer; a spooler's failure says nothing, and stays as it was.
    if (outcome.ok || outcome.printed !== 'no') break;
    // A fresh reading: the printer that refused is seen as it is, and the server hears.
    if (await refreshPrinters(context, true).catch(() => false)) {
      context.heartbeatWakeup.wake();
    }
    const next = printerToTry(context, route, tried);
    if (next === null) {
      // Every printer that could take it said nothing came out: it waits on the server
      // for one, and is claimed again once one can print (nothing printed: no second copy).
      giveBack = routeWaits(context, route) ?? refusalReason(outcome, printer);
      break;
    }
    status.log(
      'info',
      `job ${job.id}: printer ${printer} did not print it (${outcome.code}: ${outcome.message}); trying ${next}`,
    );
    printer = next;
    entry = await journal.beginSpooling(
      { job_id: job.id, route: job.route, title: job.title, printer },
      context.now(),
    );
  }
  if (!outcome.ok && outcome.code === 'printer_stopped') {
    // The back-end cancelled it unprinted because the printer stopped: it waits for the
    // printer instead of failing. A fresh reading says why, and keeps the next claim off
    // the route until the printer can print again; a reading that still says it can print
    // leaves the failure as it is (giving back would claim it again at once).
    if (await refreshPrinters(context, true).catch(() => false)) {
      context.heartbeatWakeup.wake(); // The server says why the job waits.
    }
    giveBack = routeWaits(context, route);
  }
  await journal.finish(
    entry,
    outcome.ok
      ? { state: 'printed' }
      : { state: 'failed', error: { code: outcome.code, message: outcome.message } },
    context.now(),
  );
  return { outcome, printer, giveBack };
}

/** The report the outbox sends: a confirm, a give-back (release) or an error. */
function jobReport(
  job: ClaimedJob,
  outcome: PrintOutcome,
  giveBack: WaitReason | null,
  at: string,
): OutboxReport {
  if (outcome.ok)
    return { kind: 'confirm', job_id: job.id, printer: outcome.printer, queued_at: at };
  if (giveBack !== null) return { kind: 'release', job_id: job.id, ...giveBack, queued_at: at };
  return {
    kind: 'error',
    job_id: job.id,
    code: outcome.code,
    message: outcome.message,
    queued_at: at,
  };
}

/**
 * The route's first printer, in its order (the printer, then its backups), that can print by
 * the last reading and has not been tried for this job; null when none. A printer the reading
 * does not list counts only while nothing could be read (`routeWaitReason`'s rule).
 */
function printerToTry(
  context: RuntimeContext,
  route: PrintRoute,
  tried: ReadonlySet<string>,
): string | null {
  const printers = context.status.state.printers;
  for (const name of routePrinterNames(route)) {
    if (tried.has(name)) continue;
    const printer = printers.find((candidate) => candidate.name === name);
    if (printer === undefined ? printers.length === 0 : printerCanPrint(printer)) return name;
  }
  return null;
}

/**
 * Why a job waits when its last printer refused it before any byte but the reading since
 * says the route can print again (a printer that came back meanwhile): the refusal's words.
 */
function refusalReason(outcome: PrintOutcome, printer: string): WaitReason {
  const message = outcome.ok ? `printer ${printer} did not print it` : outcome.message;
  return {
    code:
      !outcome.ok && outcome.code === 'printer_unreachable' ? 'printer_offline' : 'printer_stopped',
    message,
  };
}

function refuse(code: PrintFailureCode, message: string): PrintOutcome {
  return { ok: false, code, message, spoolerJobId: null };
}

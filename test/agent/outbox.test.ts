import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type OutboxReport,
  ReportOutbox,
  type ReportSender,
  sendReport,
} from '../../agent/core/outbox.ts';
import type { JobRecord, JobStatus } from '../../shared/printing.ts';
import { makeStateDir } from './helpers/state-dir.ts';

let state: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  state = await makeStateDir();
});
afterEach(async () => {
  await state.cleanup();
});

const noBadRecords = (file: string) => {
  throw new Error(`unexpected bad record ${file}`);
};

const confirm = (jobId: number, at: string): OutboxReport => ({
  kind: 'confirm',
  job_id: jobId,
  printer: 'P',
  queued_at: at,
});
const release = (jobId: number, at: string): OutboxReport => ({
  kind: 'release',
  job_id: jobId,
  message: 'printer P is out of paper: Paper out',
  code: 'printer_out_of_paper',
  queued_at: at,
});
const error = (jobId: number, at: string): OutboxReport => ({
  kind: 'error',
  job_id: jobId,
  message: 'paper jam',
  code: 'printer_stopped',
  queued_at: at,
});

describe('ReportOutbox', () => {
  it('keeps reports across a restart until they are delivered', async () => {
    const outbox = new ReportOutbox(state.dir);
    await outbox.load(noBadRecords);
    await outbox.add(confirm(2, '2026-11-22T10:00:02Z'));
    await outbox.add(error(1, '2026-11-22T10:00:01Z'));

    const restarted = new ReportOutbox(state.dir);
    expect(await restarted.load(noBadRecords)).toBe(2);
    expect(restarted.pending().map((report) => report.job_id)).toEqual([1, 2]);
  });

  it('keeps the first report of a job', async () => {
    const outbox = new ReportOutbox(state.dir);
    expect(await outbox.add(confirm(1, '2026-11-22T10:00:00Z'))).toBe(true);
    expect(await outbox.add(error(1, '2026-11-22T10:00:01Z'))).toBe(false);
    const restarted = new ReportOutbox(state.dir);
    await restarted.load(noBadRecords);
    expect(restarted.pending()).toEqual([confirm(1, '2026-11-22T10:00:00Z')]);
  });

  it('stops delivering at the first report that has to wait, and keeps it and the rest', async () => {
    const outbox = new ReportOutbox(state.dir);
    await outbox.add(confirm(1, '2026-11-22T10:00:01Z'));
    await outbox.add(confirm(2, '2026-11-22T10:00:02Z'));
    await outbox.add(confirm(3, '2026-11-22T10:00:03Z'));
    const tried: number[] = [];
    const result = await outbox.deliver(async (report) => {
      tried.push(report.job_id);
      return report.job_id === 2
        ? { result: 'later', error: new Error('ECONNREFUSED') }
        : { result: 'delivered' };
    });
    expect(tried).toEqual([1, 2]);
    expect(result).toMatchObject({ removed: 1, waiting: 2 });
    const restarted = new ReportOutbox(state.dir);
    await restarted.load(noBadRecords);
    expect(restarted.pending().map((report) => report.job_id)).toEqual([2, 3]);
  });
});

/** A sender whose answers the test sets; statuses mimic ApiError. */
function fakeSender(answer: {
  report?: { status: number; message: string } | Error;
  jobStatus?: JobStatus;
}): ReportSender & { calls: string[] } {
  const calls: string[] = [];
  const fail = async (name: string) => {
    calls.push(name);
    if (answer.report) throw answer.report;
    return {} as JobRecord;
  };
  return {
    calls,
    confirmJob: () => fail('confirm'),
    reportJobError: () => fail('error'),
    releaseJob: () => fail('release'),
    getJob: async () => {
      calls.push('get');
      return { status: answer.jobStatus } as JobRecord;
    },
  };
}

const httpError = (status: number) =>
  Object.assign(new Error(`status ${status}`), { status, code: 'x' });

describe('ReportOutbox.add', () => {
  it('lets the report of a job claimed again replace its give-back, and nothing else', async () => {
    const outbox = new ReportOutbox(state.dir);
    expect(await outbox.add(release(1, 'a'))).toBe(true);
    expect(await outbox.add(confirm(1, 'b'))).toBe(true);
    expect(await outbox.add(error(1, 'c'))).toBe(false);
    expect(outbox.pending()).toEqual([confirm(1, 'b')]);
  });
});

describe('sendReport', () => {
  it('counts a 2xx as delivered', async () => {
    const sender = fakeSender({});
    expect(await sendReport(sender, confirm(1, 'a'))).toEqual({ result: 'delivered' });
    expect(sender.calls).toEqual(['confirm']);
  });

  it('counts a 409 on a job already printed as delivered (a confirm that arrived before)', async () => {
    const sender = fakeSender({ report: httpError(409), jobStatus: 'printed' });
    expect(await sendReport(sender, confirm(1, 'a'))).toMatchObject({ result: 'delivered' });
    expect(sender.calls).toEqual(['confirm', 'get']);
  });

  it('counts a 409 on an error report for a job already failed as delivered', async () => {
    const sender = fakeSender({ report: httpError(409), jobStatus: 'failed' });
    expect(await sendReport(sender, error(1, 'a'))).toMatchObject({ result: 'delivered' });
  });

  it('refuses a 409 whose job is in another state (e.g. the lease ran out and it was requeued)', async () => {
    const sender = fakeSender({ report: httpError(409), jobStatus: 'queued' });
    const result = await sendReport(sender, confirm(1, 'a'));
    expect(result).toMatchObject({ result: 'refused' });
  });

  it('sends a give-back as a release, and counts a 409 on a job queued again as delivered', async () => {
    expect(await sendReport(fakeSender({}), release(1, 'a'))).toEqual({ result: 'delivered' });
    const repeated = fakeSender({ report: httpError(409), jobStatus: 'queued' });
    expect(await sendReport(repeated, release(1, 'a'))).toMatchObject({ result: 'delivered' });
    expect(repeated.calls).toEqual(['release', 'get']);
  });

  it.each([500, 503, 429, 401])('keeps the report for later on %i', async (status) => {
    const sender = fakeSender({ report: httpError(status) });
    expect(await sendReport(sender, error(1, 'a'))).toMatchObject({ result: 'later' });
  });

  it('keeps the report for later on a network error', async () => {
    const sender = fakeSender({ report: new Error('ECONNREFUSED') });
    expect(await sendReport(sender, confirm(1, 'a'))).toMatchObject({ result: 'later' });
  });

  it.each([404, 422])('drops a report the server can never take (%i)', async (status) => {
    const sender = fakeSender({ report: httpError(status) });
    expect(await sendReport(sender, confirm(1, 'a'))).toMatchObject({ result: 'refused' });
  });
});

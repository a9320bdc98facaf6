import { useState } from 'preact/hooks';
import type { RetryFailedRecord } from '../../../shared/console-jobs.ts';
import { ApiError, api } from '../api.ts';
import { count } from '../words.ts';

/** "route receipts, printer EPSON": where the failed jobs are, in words. */
function whereWords(route?: string, printer?: string): string {
  return [route && `route ${route}`, printer && `printer ${printer}`].filter(Boolean).join(', ');
}

/**
 * "Retry all failed on route receipts": once the cause is fixed (paper loaded, printer
 * switched on), queues again every failed job there that a retry can help
 * (`POST /console/jobs/retry-failed`), and tells `onDone` how many, and how many it left and
 * why (the page says it: the button itself goes once no failed job is left).
 */
export function RetryAllButton(props: {
  route?: string | undefined;
  printer?: string | undefined;
  onDone: (message: string) => void;
}) {
  const { route, printer, onDone } = props;
  const [busy, setBusy] = useState(false);
  const where = whereWords(route, printer);
  const retry = async () => {
    setBusy(true);
    onDone('');
    let retried = 0;
    try {
      let answer: RetryFailedRecord;
      do {
        answer = (
          await api<{ data: RetryFailedRecord }>('POST', '/console/jobs/retry-failed', {
            ...(route && { route }),
            ...(printer && { printer }),
          })
        ).data;
        retried += answer.retried;
      } while (answer.more && answer.retried > 0);
      const left =
        answer.left > 0
          ? ` ${count(answer.left, 'failed job')} left as ${answer.left === 1 ? 'it is' : 'they are'}: a retry cannot help (each job's page says why).`
          : '';
      onDone(`${count(retried, 'job')} queued again on ${where}.${left}`);
    } catch (failure) {
      onDone(failure instanceof ApiError ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="retry-all">
      <button type="button" class="secondary" onClick={retry} disabled={busy}>
        Retry all failed on {where}
      </button>
      <p class="hint">Once the cause is fixed: every failed job there that a retry can help.</p>
    </div>
  );
}

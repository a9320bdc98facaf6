import type { Storage } from '../../storage/database.ts';
import type { WebhookOutbox } from '../../webhooks/index.ts';
import type { PrintQueueStore } from '../store/queue-store.ts';
import type { JobRenderer } from './job-renderer.ts';

/**
 * What the job and agent operations work with: the storage (for the transactions that
 * make several steps one unit), the queue's store, the outbox (the agents' events; the
 * store records the jobs' own), and the renderer of template jobs (at their claim, and their
 * reprint), which the wiring hands in (`JobRenderer`).
 */
export interface PrintQueue {
  storage: Storage;
  store: PrintQueueStore;
  outbox: WebhookOutbox;
  renderer: JobRenderer;
}

import type { ExpressionBuilder } from 'kysely';
import { prepared } from '../../../storage/prepared.ts';
import type { Database } from '../../../storage/schema.ts';
import type { ClaimRequest } from '../queue-store.ts';
import type { Transition } from './trail.ts';

/** What a claim writes on the job it takes. */
export const claimedColumns =
  (p: ClaimRequest) => (eb: ExpressionBuilder<Database, 'print_jobs'>) => ({
    status: 'claimed' as const,
    agent_id: p.agentUuid,
    claimed_at: p.now,
    lease_expires_at: p.lease,
    updated_at: p.now,
    attempts: eb('attempts', '+', 1),
  });

/** The claim's row of the trail. */
export const claimTransition = (request: ClaimRequest, jobId: number): Transition => ({
  companyId: request.companyId,
  jobId,
  from: 'queued',
  to: 'claimed',
  agentId: request.agentUuid,
  message: null,
  at: request.now,
});

/** The claimed job's document, which the claim's answer carries. */
export const documentContent = prepared<{ documentId: number }, { content: Buffer }>((db, p) =>
  db.selectFrom('print_documents').select('content').where('id', '=', p.documentId),
);

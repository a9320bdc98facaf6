/**
 * What printing offers the other folders: the agents and their routes as the console
 * edits them, and what the console's pages show of the print queue. Printing owns the
 * agents, their printers' attention, routes, documents, jobs and the jobs' trail.
 */

export { boundJobGuard } from './agents/agent-binding.ts';
export { findAgentRow } from './agents/agent-identities.ts';
export {
  agentPresentSeconds,
  memberPresenceDue,
  memberPresentSeconds,
  type Presence,
} from './agents/presence.ts';
export { readRouteList } from './agents/read-route-list.ts';
export { removeAgent } from './agents/remove-agent.ts';
export { renameAgent } from './agents/rename-agent.ts';
export { readRouteProfile, routeProfiles } from './agents/route-profiles.ts';
export { withWaitReasons } from './agents/route-wait-reasons.ts';
export { servedRouteNames } from './agents/served-route-names.ts';
export { updateRouteList } from './agents/update-route-list.ts';
export { expiryOf } from './jobs/create-job.ts';
export type {
  ClaimedTemplateJob,
  JobRenderer,
  JobRendering,
  QueueWrites,
  TemplateJobToCreate,
} from './jobs/job-renderer.ts';
export { listConsoleJobs, readJobChoices, withWhere } from './jobs/read-console-jobs.ts';
export { readDocumentContent } from './jobs/read-document-content.ts';
export type { JobGuard } from './jobs/read-job.ts';
export { readJobDetail } from './jobs/read-job.ts';
export { readJobDocument } from './jobs/read-job-document.ts';
export { toJobRecord } from './jobs/records.ts';
export { retryFailedJobs } from './jobs/retry-failed-jobs.ts';
export {
  claimForMember,
  confirmMemberJob,
  failMemberJob,
  heldJobOf,
  type MemberLastSeen,
  memberHolds,
  memberLastSeen,
  type NewPrinterMember,
  recordMemberModel,
  recordMemberSeen,
  registerPrinterMember,
  releaseMemberJob,
} from './printer-members.ts';
export { readPrintingMarks } from './read-change-marks.ts';
export { type PrintingOverview, readPrintingOverview } from './read-overview.ts';
export type { PrintingService } from './service.ts';
export type { PrintQueueStore } from './store/queue-store.ts';

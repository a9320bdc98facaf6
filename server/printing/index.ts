/**
 * What printing offers the other folders: the agents and their routes as the console
 * edits them, and what the console's pages show of the print queue. Printing owns the
 * agents, their printers' attention, routes, documents, jobs and the jobs' trail.
 */
export { findAgentRow } from './agents/agent-identities.ts';
export { onlineSince, type Presence } from './agents/presence.ts';
export { readRouteList } from './agents/read-route-list.ts';
export { updateRouteList } from './agents/update-route-list.ts';
export { readJobDocument } from './jobs/read-job-document.ts';
export {
  claimForMember,
  confirmMemberJob,
  failMemberJob,
  heldJobOf,
  jobQueuedOn,
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

/**
 * What releases offer the other folders: where each agent stands on updates (the agents'
 * list shows it). Releases own the agent builds, their chunks and the agents' last checks.
 */
export { withUpdateStatus } from './agent-update-status.ts';

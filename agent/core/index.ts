/**
 * The print agent's core, plain Node (no Electron): what the headless CLI and the Electron
 * shell use.
 */
export {
  AgentApiClient,
  type AgentApiClientOptions,
  ApiError,
  ServerUnreachableError,
  UnexpectedResponseError,
} from './api-client.ts';
export {
  type AgentCommandOptions,
  agentRuntimeOptionsFrom,
  defaultStateDir,
  parseRouteArgument,
  runAgentCommand,
  UsageError,
} from './cli.ts';
export { interruptedJobError, JobJournal, type JournalEntry } from './journal.ts';
export { type OutboxReport, ReportOutbox } from './outbox.ts';
export type {
  PrintableJob,
  PrinterBackend,
  PrintFailureCode,
  PrintOutcome,
} from './printers/backend.ts';
export {
  CupsBackend,
  createPrinterBackend,
  FolderBackend,
  PrinterBackendByName,
  WindowsBackend,
} from './printers/index.ts';
export {
  AgentRuntime,
  type AgentRuntimeOptions,
  agentVersion,
  createAgentRuntime,
  type JobResult,
  type RuntimeLogLine,
} from './runtime.ts';
export type { AgentControl, AgentStatus, ConnectionState, LogLine, RecentJob } from './status.ts';

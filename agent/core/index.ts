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
  type RouteArgument,
  runAgentCommand,
} from './cli.ts';
export { interruptedJobError, JobJournal, type JournalEntry } from './journal.ts';
export { type OutboxReport, ReportOutbox } from './outbox.ts';
export type {
  PrintableJob,
  PrintedWhenFailed,
  PrinterBackend,
  PrintFailureCode,
  PrintOutcome,
} from './printers/backend.ts';
export {
  CupsBackend,
  createPrinterBackend,
  DirectBackend,
  FolderBackend,
  isDirectPrinter,
  PrinterBackendByName,
  WindowsBackend,
} from './printers/index.ts';
export { AgentRuntime, createAgentRuntime } from './runtime/agent-runtime.ts';
export type { AgentRuntimeOptions } from './runtime/runtime-context.ts';
export type {
  AgentControl,
  AgentStatus,
  ConnectionState,
  JobResult,
  LogLine,
  RecentJob,
  RuntimeLogLine,
} from './status.ts';
export { agentVersion } from './version.ts';

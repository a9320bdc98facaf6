import { type IpcMainInvokeEvent, ipcMain } from 'electron';
import type { InvokeChannel, InvokeResults } from '../common/ipc.ts';
import { type InvokeArguments, invokeArgumentSchemas } from '../common/ipc-schemas.ts';
import { isAppPageUrl } from './app-protocol.ts';

export type InvokeHandlers = {
  [C in InvokeChannel]: (
    ...args: InvokeArguments<C>
  ) => Promise<InvokeResults[C]> | InvokeResults[C];
};

/** Which web contents may talk to the main process: only the settings window, top frame. */
export type OwnWindowIds = () => ReadonlySet<number>;

export class IpcRefusedError extends Error {
  override name = 'IpcRefusedError';
}

/** The sender is one of our windows, and the frame that sent it shows our own page. */
export function isOwnSender(event: IpcMainInvokeEvent, ownWindowIds: OwnWindowIds): boolean {
  const frame = event.senderFrame;
  if (!ownWindowIds().has(event.sender.id) || frame === null) return false;
  // A child frame is never ours: the page has no frames, and CSP forbids loading any.
  return frame.parent === null && isAppPageUrl(frame.url);
}

/**
 * Registers one `ipcMain.handle` per invoke channel. Every message is checked before its
 * handler runs: sender first (a foreign page learns nothing, not even whether its arguments
 * were right), then the arguments against the channel's zod tuple. Refusals throw, so the
 * caller's promise rejects, and are reported through `onRefused` for the log.
 */
export function registerIpcHandlers(
  handlers: InvokeHandlers,
  ownWindowIds: OwnWindowIds,
  onRefused: (channel: InvokeChannel, reason: string) => void,
): () => void {
  const channels = Object.keys(invokeArgumentSchemas) as InvokeChannel[];
  for (const channel of channels) {
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      if (!isOwnSender(event, ownWindowIds)) {
        onRefused(channel, `foreign sender ${event.senderFrame?.url ?? '(no frame)'}`);
        throw new IpcRefusedError('Refused: not sent by the agent window.');
      }
      const parsed = invokeArgumentSchemas[channel].safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
        onRefused(channel, `invalid arguments${where}: ${issue?.message ?? 'invalid'}`);
        throw new IpcRefusedError(`Refused: ${issue?.message ?? 'invalid arguments'}${where}`);
      }
      const handler = handlers[channel] as (...values: unknown[]) => unknown;
      return handler(...(parsed.data as unknown[]));
    });
  }
  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}

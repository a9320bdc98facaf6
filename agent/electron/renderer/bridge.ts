import { type ActionResult, bridgeGlobalName, type ShopDeskBridge } from '../common/ipc.ts';

/**
 * The window's whole reach into the app: `window.shopdesk`, the typed bridge the preload puts
 * there (preload/index.ts). Nothing else here talks to the main process.
 */
export const bridge = (window as unknown as Record<string, ShopDeskBridge>)[bridgeGlobalName]!;

/** Bridge calls that reject (a refused message) show as a failed action, never as silence. */
export async function settle(run: () => Promise<ActionResult>): Promise<ActionResult> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Electron wraps a rejection as "Error invoking remote method 'x': Error: …".
    return {
      ok: false,
      message: message.replace(/^Error invoking remote method '[^']*': \w*Error: /, ''),
    };
  }
}

/**
 * A bridge call as the shared components (ui/) take their actions: its words when it went
 * well, an error with its words when not.
 */
export async function inWords(run: () => Promise<ActionResult>, done = ''): Promise<string> {
  const result = await settle(run);
  if (!result.ok) throw new Error(result.message);
  return result.message ?? done;
}

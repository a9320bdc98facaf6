import type { ActionResult } from '../common/ipc.ts';

/** Where the API lives under the address the user typed (they may or may not add /api/v1). */
export function apiBaseUrl(serverUrl: string): string {
  return `${serverUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1`;
}

/**
 * Checks an address and token before they are saved: `GET /me` needs a valid token and no
 * named permission (docs/reference.md, authentication), so it tells "unreachable" from "token
 * refused" without side effects on the print queue.
 */
export async function testServerConnection(
  request: { serverUrl: string; token: string },
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 8000,
): Promise<ActionResult> {
  const url = `${apiBaseUrl(request.serverUrl)}/me`;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { authorization: `Bearer ${request.token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason =
      (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause ?? 'network error');
    return { ok: false, message: `Cannot reach the server (${reason}). Check the address.` };
  }
  await response.body?.cancel();
  if (response.ok) return { ok: true, message: 'Connected: the server accepted the token.' };
  if (response.status === 401) {
    return { ok: false, message: 'The server refused the token (unknown, expired or revoked).' };
  }
  if (response.status === 404) {
    return { ok: false, message: 'That address answers, but it is not a ShopDesk server.' };
  }
  return { ok: false, message: `The server answered ${response.status}. Try again later.` };
}

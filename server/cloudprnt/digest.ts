import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * HTTP Digest access authentication (RFC 7616), as Epson's TM intelligent printers speak it
 * for Server Direct Print: before each request the printer sends a dummy one, the server
 * answers 401 with a challenge, and the printer sends its request again with the digest of
 * its ID and password (Server Direct Print User's Manual, "Digest Access Authentication").
 * MD5 and `qop=auth`, which every Digest client speaks; the older form without `qop`
 * (RFC 2069) is accepted too.
 *
 * The server keeps the printer's HA1, MD5(user:realm:password), never the password. Nonces
 * hold no state: a nonce is its time and random bytes, and an answer is taken while its nonce
 * is younger than `nonceSeconds`, so any instance of the server checks any nonce. The answer's
 * digest covers the nonce, so a nonce cannot be made younger without the password; a request
 * captured on the wire could be replayed while its nonce lasts, which Server Direct Print's
 * requests withstand (a print request claims nothing new while one is held; a result is acted
 * on once).
 */

export const digestRealm = 'shopdesk';
/** How long a nonce is good for: long past a printer's dummy request and its answer. */
export const nonceSeconds = 300;

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** HA1 (RFC 7616 §3.4.2): what the server keeps of a printer's password. */
export const digestHa1 = (user: string, password: string): string =>
  md5(`${user}:${digestRealm}:${password}`);

/** The `WWW-Authenticate` of a 401: a fresh nonce; `stale` when the answer's nonce had expired. */
export function digestChallenge(now: Date, stale = false): string {
  const nonce = `${Math.floor(now.getTime() / 1000).toString(16)}.${randomBytes(12).toString('hex')}`;
  return `Digest realm="${digestRealm}", qop="auth", algorithm=MD5, nonce="${nonce}"${stale ? ', stale=true' : ''}`;
}

/** The parameters of an `Authorization: Digest …` header; undefined when it is not one. */
export interface DigestAnswer {
  username: string;
  realm: string;
  nonce: string;
  uri: string;
  response: string;
  qop?: string | undefined;
  nc?: string | undefined;
  cnonce?: string | undefined;
  algorithm?: string | undefined;
}

export function parseDigest(header: string | undefined): DigestAnswer | undefined {
  if (!header || header.length > 2048 || !/^Digest\s/i.test(header)) return undefined;
  const params: Record<string, string> = {};
  const pattern = /([A-Za-z]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  for (const [, key, quoted, bare] of header.slice(7).matchAll(pattern)) {
    params[key!.toLowerCase()] = quoted?.replace(/\\(.)/g, '$1') ?? bare ?? '';
  }
  const { username, realm, nonce, uri, response } = params;
  if (!username || realm === undefined || !nonce || !uri || !response) return undefined;
  return {
    username,
    realm,
    nonce,
    uri,
    response,
    qop: params.qop,
    nc: params.nc,
    cnonce: params.cnonce,
    algorithm: params.algorithm,
  };
}

/** Whether the nonce is one of ours and still young. */
export function nonceFresh(nonce: string, now: Date): boolean {
  const match = /^([0-9a-f]{1,12})\.[0-9a-f]{24}$/.exec(nonce);
  if (!match) return false;
  const age = now.getTime() / 1000 - Number.parseInt(match[1]!, 16);
  return age >= -5 && age <= nonceSeconds;
}

/**
 * Whether the answer was made with the password HA1 stands for, for this method and path
 * (RFC 7616 §3.4.1, `qop=auth`, or RFC 2069 without `qop`), compared in constant time. The
 * nonce's freshness is `nonceFresh`'s to say.
 */
export function digestMatches(
  answer: DigestAnswer,
  ha1: string,
  method: string,
  path: string,
): boolean {
  if (answer.realm !== digestRealm) return false;
  if (answer.algorithm !== undefined && answer.algorithm.toUpperCase() !== 'MD5') return false;
  // The uri answered for is the one requested (its query, if any, left out of the check).
  if (answer.uri.split('?')[0] !== path) return false;
  const ha2 = md5(`${method}:${answer.uri}`);
  let expected: string;
  if (answer.qop === undefined) expected = md5(`${ha1}:${answer.nonce}:${ha2}`);
  else if (answer.qop === 'auth' && answer.nc && answer.cnonce) {
    expected = md5(`${ha1}:${answer.nonce}:${answer.nc}:${answer.cnonce}:auth:${ha2}`);
  } else return false;
  const given = Buffer.from(answer.response.toLowerCase());
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

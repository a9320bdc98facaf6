import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  digestChallenge,
  digestHa1,
  digestMatches,
  digestRealm,
  nonceFresh,
  nonceSeconds,
  parseDigest,
} from '../../server/cloudprnt/digest.ts';
import { eposPrintOfDocument } from '../../server/cloudprnt/serve-sdp.ts';

/** HTTP Digest as Epson's printers answer it (RFC 7616 §3.4, MD5, qop auth; RFC 2069). */
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const now = new Date('2026-01-01T12:00:00Z');
const nonce = /nonce="([^"]+)"/.exec(digestChallenge(now))![1]!;
const ha1 = digestHa1('sdp-1', 'secret');

function answer(over: Record<string, string> = {}) {
  const p = {
    uri: '/api/v1/cloudprnt/epson',
    nc: '00000001',
    cnonce: 'abc',
    method: 'POST',
    ...over,
  };
  const ha2 = md5(`${p.method}:${p.uri}`);
  const response = md5(`${ha1}:${nonce}:${p.nc}:${p.cnonce}:auth:${ha2}`);
  return `Digest username="sdp-1", realm="${digestRealm}", nonce="${nonce}", uri="${p.uri}", algorithm=MD5, qop=auth, nc=${p.nc}, cnonce="${p.cnonce}", response="${over.response ?? response}"`;
}

describe('HTTP Digest', () => {
  it('takes the answer made with the password, for the method and path requested', () => {
    const parsed = parseDigest(answer())!;
    expect(parsed).toMatchObject({ username: 'sdp-1', qop: 'auth', nc: '00000001' });
    expect(digestMatches(parsed, ha1, 'POST', '/api/v1/cloudprnt/epson')).toBe(true);
  });

  it.each([
    [
      'another password',
      () =>
        digestMatches(
          parseDigest(answer())!,
          digestHa1('sdp-1', 'x'),
          'POST',
          '/api/v1/cloudprnt/epson',
        ),
    ],
    ['another path', () => digestMatches(parseDigest(answer())!, ha1, 'POST', '/api/v1/cloudprnt')],
    [
      'another method',
      () => digestMatches(parseDigest(answer())!, ha1, 'GET', '/api/v1/cloudprnt/epson'),
    ],
    [
      'a forged response',
      () =>
        digestMatches(
          parseDigest(answer({ response: 'a'.repeat(32) }))!,
          ha1,
          'POST',
          '/api/v1/cloudprnt/epson',
        ),
    ],
  ])('refuses %s', (_, check) => {
    expect(check()).toBe(false);
  });

  it('takes the older answer without qop (RFC 2069)', () => {
    const ha2 = md5('POST:/p');
    const header = `Digest username="sdp-1", realm="${digestRealm}", nonce="${nonce}", uri="/p", response="${md5(`${ha1}:${nonce}:${ha2}`)}"`;
    expect(digestMatches(parseDigest(header)!, ha1, 'POST', '/p')).toBe(true);
  });

  it('is not Basic, nor a header missing a part', () => {
    expect(parseDigest('Basic eDp5')).toBeUndefined();
    expect(parseDigest('Digest username="a", nonce="b"')).toBeUndefined();
  });

  it(`takes a nonce of ours for ${nonceSeconds} s, not one it did not make`, () => {
    expect(nonceFresh(nonce, now)).toBe(true);
    expect(nonceFresh(nonce, new Date(now.getTime() + nonceSeconds * 1000))).toBe(true);
    expect(nonceFresh(nonce, new Date(now.getTime() + (nonceSeconds + 1) * 1000))).toBe(false);
    expect(nonceFresh('abc', now)).toBe(false);
  });
});

describe('an ePOS-Print XML job inside a print request', () => {
  const doc =
    '<epos-print xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print"><text>Hi</text></epos-print>';

  it('is the one <epos-print> element, its XML declaration dropped', () => {
    expect(eposPrintOfDocument(`<?xml version="1.0" encoding="utf-8"?>\n${doc}`)).toBe(doc);
  });

  it.each([
    `${doc}</PrintData></ePOSPrint><ePOSPrint><PrintData>${doc}`,
    doc.replace('Hi', '<!-- x -->'),
    doc.replace('Hi', '<![CDATA[x]]>'),
    '<text>not epos-print</text>',
  ])('refuses %j, which could add a job or is none', (xml) => {
    expect(eposPrintOfDocument(xml)).toBeUndefined();
  });
});

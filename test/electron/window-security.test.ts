import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  contentSecurityPolicy,
  metaContentSecurityPolicy,
} from '../../agent/electron/common/content-security-policy.ts';
import {
  isAppPageUrl,
  resolveRendererFile,
  windowPageUrl,
} from '../../agent/electron/main/app-protocol.ts';

describe('window security', () => {
  it("index.html carries the response header's Content-Security-Policy, less frame-ancestors", () => {
    const html = readFileSync(
      new URL('../../agent/electron/renderer/index.html', import.meta.url),
      'utf8',
    );
    const meta = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/);
    expect(meta?.[1]).toBe(metaContentSecurityPolicy);
    expect(contentSecurityPolicy.replace("; frame-ancestors 'none'", '')).toBe(meta?.[1]);
    expect(meta?.[1]).not.toContain('frame-ancestors');
  });

  it('the policy allows no inline script, no remote code and no framing', () => {
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    expect(contentSecurityPolicy).toContain("script-src 'self'");
    expect(contentSecurityPolicy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(contentSecurityPolicy).toContain("frame-ancestors 'none'");
  });

  it.each([
    [windowPageUrl, true],
    ['shopdesk-app://window/renderer.js?x=1', true],
    ['shopdesk-app://other/index.html', false],
    ['file:///opt/shopdesk/index.html', false],
    ['https://window/index.html', false],
    ['not a url', false],
  ])('isAppPageUrl(%s) is %s', (url, expected) => {
    expect(isAppPageUrl(url)).toBe(expected);
  });

  it('serves files of the renderer directory only', () => {
    const dir = '/opt/agent/dist/renderer';
    expect(resolveRendererFile(dir, 'shopdesk-app://window/')).toBe(`${dir}/index.html`);
    expect(resolveRendererFile(dir, 'shopdesk-app://window/styles.css')).toBe(`${dir}/styles.css`);
    // The URL parser already folds "..", encoded or not, at the root of the path.
    expect(resolveRendererFile(dir, 'shopdesk-app://window/../main.js')).toBe(`${dir}/main.js`);
    expect(resolveRendererFile(dir, 'shopdesk-app://window/%2e%2e/main.js')).toBe(`${dir}/main.js`);
    // An encoded slash survives the parser and is decoded after it: that one must be stopped.
    expect(resolveRendererFile(dir, 'shopdesk-app://window/..%2fmain.js')).toBeNull();
    expect(resolveRendererFile(dir, 'shopdesk-app://window/..%2f..%2fetc%2fpasswd')).toBeNull();
    expect(resolveRendererFile(dir, 'shopdesk-app://elsewhere/index.html')).toBeNull();
  });
});

/**
 * The settings window's Content-Security-Policy, sent by the main process as a response header:
 * the page loads only its own script and style, talks to nothing, and cannot be framed.
 */
const directives = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
];

export const contentSecurityPolicy = directives.join('; ');

/**
 * The same policy for renderer/index.html's meta tag (a test keeps them equal), less
 * frame-ancestors, which browsers take from the header only.
 */
export const metaContentSecurityPolicy = directives
  .filter((directive) => !directive.startsWith('frame-ancestors'))
  .join('; ');

/**
 * The settings window's Content-Security-Policy. The main process sends it as a response
 * header and renderer/index.html repeats it in a meta tag (a test keeps the two equal): the
 * page loads only its own script and style, talks to nothing, and cannot be framed.
 */
export const contentSecurityPolicy = [
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
].join('; ');

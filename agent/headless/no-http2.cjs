// Stands in for undici's dispatcher/client-h2.js in the headless agent's bundle (bundle.ts):
// the agent talks HTTP/1.1 to the server (it never sets allowH2), and client-h2.js loads
// node:http2 at start, which alone costs the process ~10 MiB of memory.
module.exports = function connectH2() {
  throw new Error('HTTP/2 is left out of the headless agent, which talks HTTP/1.1');
};

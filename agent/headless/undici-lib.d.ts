// Types of the undici modules agent/headless/undici-lite.ts loads one by one: the classes and
// functions the package's index re-exports, which carry the types.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const agent: typeof Agent;
  export default agent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';

  const dispatcher: typeof Dispatcher;
  export default dispatcher;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
declare module 'undici/lib/core/errors.js' {
  import type { errors } from 'undici';

  const errorClasses: typeof errors;
  export default errorClasses;
}

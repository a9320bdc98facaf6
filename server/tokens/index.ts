/**
 * What tokens offer the other folders: who a bearer token is (the HTTP core asks), and a
 * company's tokens to make, list and revoke, those bound to a print agent included.
 * Tokens own the tokens table.
 */
export { agentTokenIds, readTokenRoutes, revokeAgentTokens } from './agent-tokens.ts';
export {
  bearerOf,
  type Caller,
  type ConsoleCaller,
  TokenAuthenticator,
} from './authenticate.ts';
export { createToken, type IssuedToken } from './create-token.ts';
export { listTokens } from './list-tokens.ts';
export { revokeToken } from './revoke-token.ts';

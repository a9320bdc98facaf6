import type { Storage } from '../../server/storage/database.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import type { Tokens } from './print-client.ts';

/**
 * The two tokens every print-queue bench uses, issued through the server's own module: an
 * agent's (`printing.agent`) and an integrator's (create and read jobs).
 */
export async function issuePrintTokens(storage: Storage, companyId: number): Promise<Tokens> {
  const agent = await createToken(storage.db, {
    companyId,
    permissions: ['printing.agent'],
    name: 'bench agent',
  });
  const integrator = await createToken(storage.db, {
    companyId,
    permissions: ['printing.jobs.create', 'printing.jobs.read'],
    name: 'bench integrator',
  });
  return { agentToken: agent.secret, integratorToken: integrator.secret };
}

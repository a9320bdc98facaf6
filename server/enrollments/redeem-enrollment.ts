import {
  normalizeEnrollmentCode,
  type RedeemEnrollmentBody,
  type RedeemedEnrollment,
} from '../../shared/enrollments.ts';
import { readCompanyName } from '../companies/index.ts';
import { Conflict, invalidField } from '../domain-errors.ts';
import { findAgentRow, servedRouteNames } from '../printing/index.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { createToken, revokeAgentTokens } from '../tokens/index.ts';
import { agentKnown } from './agent-known.ts';
import { hashEnrollmentCode } from './enrollment-code.ts';
import { enrollmentState } from './enrollments.ts';

const unknownCode =
  'This enrolment code is not known: check it for typos, or ask IT for a new one.';

/**
 * Trades a code for a token of the agent's own, bound to its uuid (it acts as that agent
 * only, docs/security.md), once per use the code allows. An ordinary code enrols a NEW
 * agent: a uuid the company already knows (agent-known.ts) is refused (409) and that agent
 * is left as it was, since uuids are on every job record and the token would take over its
 * routes, history and queued documents. A code made to re-enrol one agent (`agent_id`)
 * enrols that uuid alone, and revokes the agent's old tokens in the same transaction; the
 * new token may add the routes the old ones could, and the code's. An agent trading the same
 * code again before it registered (its first answer lost) gets a new token, and the one it
 * never received is revoked.
 *
 * One transaction: the use is counted by an `UPDATE … WHERE used < uses`, which two
 * instances racing for the last use cannot both pass (PostgreSQL re-reads the row the first
 * one changed, once it commits, and finds it used up), and the token, its record, the count
 * and the revocations commit together or not at all; a refusal spends nothing. A code that
 * cannot enrol is refused as an invalid `code` field, saying why; an agent that asks for a
 * route the code does not grant (`routes`), as an invalid `routes` field naming what it grants.
 */
export async function redeemEnrollment(
  storage: Storage,
  input: RedeemEnrollmentBody,
  now: Date,
): Promise<RedeemedEnrollment> {
  const compact = normalizeEnrollmentCode(input.code);
  if (compact === null) throw invalidField('code', unknownCode);
  const codeHash = hashEnrollmentCode(compact);
  const uuid = input.uuid.toLowerCase();
  const stamp = isoNow(now);
  return storage.transaction(storage.db, async (trx) => {
    const taken = await trx
      .updateTable('print_enrollments')
      .set((eb) => ({ used: eb('used', '+', 1) }))
      .where('code_hash', '=', codeHash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', stamp)
      .whereRef('used', '<', 'uses')
      .returningAll()
      .executeTakeFirst();
    if (!taken) {
      const row = await trx
        .selectFrom('print_enrollments')
        .selectAll()
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      if (!row) throw invalidField('code', unknownCode);
      const state = enrollmentState(row, now);
      const why =
        state === 'revoked'
          ? `was revoked at ${row.revoked_at}`
          : state === 'used_up'
            ? `has been used up (${row.used} of ${row.uses} ${row.uses === 1 ? 'agent' : 'agents'} enrolled)`
            : `expired at ${row.expires_at}`;
      throw invalidField('code', `This enrolment code ${why}; ask IT for a new code.`);
    }
    if (taken.agent_uuid !== null && taken.agent_uuid !== uuid) {
      throw invalidField(
        'code',
        `This enrolment code re-enrols another computer (agent ${taken.agent_uuid}); use it on that computer, or ask IT for a code for a new agent.`,
      );
    }
    if (taken.agent_uuid === null && (await agentKnown(trx, taken.company_id, uuid, taken.id))) {
      throw new Conflict(
        `The agent ${uuid} is already enrolled in this company, and this code enrols new agents only; nothing was changed. To enrol that computer again, ask IT for a code made for it (the console's "Re-enrol this computer" on the agent, or shopdesk enrollment create --agent ${uuid}).`,
      );
    }
    const registered = await findAgentRow(trx, uuid);
    if (registered !== undefined && registered.company_id !== taken.company_id) {
      throw new Conflict(
        `The agent ${uuid} is registered to another company; give this agent a new state directory (it generates a new UUID) and enrol it again.`,
      );
    }
    // The agent's old tokens stop here (the cache hears of it: the route): on a re-enrolment
    // all of them; else only what this code issued it before, an answer it never got.
    const granted = JSON.parse(taken.routes) as string[];
    const { routes: before } = await revokeAgentTokens(trx, taken.company_id, uuid, now);
    for (const route of before) {
      if (!granted.includes(route)) granted.push(route);
    }
    // Before anything is kept: a refusal here rolls the use and the revocations back.
    await refuseRoutesBeyond(trx, taken.company_id, uuid, granted, input.routes ?? []);
    const host = input.hostname ? ` on ${input.hostname.slice(0, 200)}` : '';
    const token = await createToken(
      trx,
      {
        companyId: taken.company_id,
        name: `agent enrolled${host}`.slice(0, 255),
        permissions: ['printing.agent'],
        agentUuid: uuid,
        // What the code grants: the routes its agent may take (agent-binding.ts).
        routes: granted,
      },
      now,
    );
    await trx
      .insertInto('print_enrollment_agents')
      .values({
        enrollment_id: taken.id,
        company_id: taken.company_id,
        agent_uuid: uuid,
        token_id: token.id,
        enrolled_at: stamp,
      })
      .execute();
    const name = await readCompanyName(trx, taken.company_id);
    if (name === undefined)
      throw new Error(`company ${taken.company_id} of an enrolment code is gone`);
    return {
      token: token.secret,
      token_id: token.id,
      agent_id: uuid,
      company: { id: taken.company_id, name },
      routes: JSON.parse(taken.routes) as string[],
    };
  });
}

/**
 * Refuses an agent that would serve a route its token could not add (agent-binding.ts): the
 * server would answer its `PUT /printing/routes` 403 once the code was spent, and the code
 * could never serve it again. The routes it already serves (a re-enrolment) stay allowed.
 */
async function refuseRoutesBeyond(
  trx: Db,
  companyId: number,
  uuid: string,
  granted: readonly string[],
  wanted: readonly string[],
): Promise<void> {
  if (wanted.length === 0) return;
  const served = await servedRouteNames(trx, companyId, uuid);
  const allowed = new Set([...granted, ...served]);
  const beyond = [...new Set(wanted)].filter((name) => !allowed.has(name));
  if (beyond.length === 0) return;
  const grants =
    granted.length === 0
      ? 'grants no routes'
      : `grants the ${granted.length === 1 ? 'route' : 'routes'} ${granted.join(', ')}`;
  const asked = `${beyond.length === 1 ? 'route' : 'routes'} ${beyond.join(', ')}`;
  throw invalidField(
    'routes',
    `This enrolment code ${grants}, and this agent asks for the ${asked}; nothing was used, the code still works. Start the agent with --route for the granted routes only, or ask IT for a code that grants ${beyond.join(', ')} (in the console: Agents, Enrol an agent).`,
  );
}

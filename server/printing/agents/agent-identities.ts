import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import type { AgentRow } from './records.ts';

/** What the routes need to know about the calling agent; immutable once registered. */
export interface AgentRef {
  rowId: number;
  companyId: number;
  uuid: string;
}

export function findAgentRow(db: Db, uuid: string): Promise<AgentRow | undefined> {
  return db.selectFrom('print_agents').selectAll().where('uuid', '=', uuid).executeTakeFirst();
}

/**
 * The registered agents' identities, cached: an agent's uuid → row and company never
 * changes once registered, so the cache needs no invalidation, even with several instances.
 */
export class AgentIdentities {
  readonly #byUuid = new Map<string, AgentRef>();

  /**
   * The agent registered with this UUID (as the route read it from X-Agent-Id), in the
   * caller's company; another company's agent reads as unknown (its existence is not
   * revealed): 409, register first.
   */
  async require(db: Db, uuid: string, companyId: number): Promise<AgentRef> {
    const agent = await this.#lookup(db, uuid.toLowerCase());
    if (!agent || agent.companyId !== companyId) {
      throw new Conflict(
        'No agent with this X-Agent-Id is registered for this company: register it with POST /printing/register first.',
      );
    }
    return agent;
  }

  /** Whether the agent is still registered to its company, read now (never cached). */
  async stillRegistered(db: Db, agent: AgentRef): Promise<boolean> {
    const row = await findAgentRow(db, agent.uuid);
    return row?.id === agent.rowId && row.company_id === agent.companyId;
  }

  async #lookup(db: Db, uuid: string): Promise<AgentRef | undefined> {
    const cached = this.#byUuid.get(uuid);
    if (cached) return cached;
    const row = await findAgentRow(db, uuid);
    if (!row) return undefined;
    const agent = { rowId: row.id, companyId: row.company_id, uuid: row.uuid };
    if (this.#byUuid.size >= 10_000) this.#byUuid.clear();
    this.#byUuid.set(uuid, agent);
    return agent;
  }
}

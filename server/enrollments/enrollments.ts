import type { Selectable } from 'kysely';
import type {
  CreatedEnrollment,
  CreateEnrollmentBody,
  EnrollmentRecord,
} from '../../shared/enrollments.ts';
import type { PageQuery } from '../../shared/http.ts';
import { invalidField, NotFound, unknownReference } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { readPage } from '../storage/pages.ts';
import type { FleetTables } from '../storage/tables/fleet.ts';
import { isoNow } from '../time.ts';
import { agentKnown } from './agent-known.ts';
import { hashEnrollmentCode, newEnrollmentCode } from './enrollment-code.ts';

type EnrollmentRow = Selectable<FleetTables['print_enrollments']>;

/** Why a code can no longer enrol, or `active`; revoked first, then used up, then expired. */
export function enrollmentState(row: EnrollmentRow, now: Date): EnrollmentRecord['state'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.used >= row.uses) return 'used_up';
  if (row.expires_at <= isoNow(now)) return 'expired';
  return 'active';
}

async function recordsOf(db: Db, rows: EnrollmentRow[], now: Date): Promise<EnrollmentRecord[]> {
  const ids = rows.map((row) => row.id);
  const agents =
    ids.length === 0
      ? []
      : await db
          .selectFrom('print_enrollment_agents')
          .select(['enrollment_id', 'agent_uuid', 'token_id', 'enrolled_at'])
          .where('enrollment_id', 'in', ids)
          .orderBy('id')
          .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    routes: JSON.parse(row.routes) as string[],
    uses: row.uses,
    used: row.used,
    state: enrollmentState(row, now),
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    created_at: row.created_at,
    agent_id: row.agent_uuid,
    agents: agents
      .filter((agent) => agent.enrollment_id === row.id)
      .map((agent) => ({
        id: agent.agent_uuid,
        token_id: agent.token_id,
        enrolled_at: agent.enrolled_at,
      })),
  }));
}

/**
 * A new code; the answer is the one place the code itself is ever shown. With `agent_id`,
 * a code that re-enrols that agent, which the company must know (registered, or bound to
 * one of its live tokens), once.
 */
export async function createEnrollment(
  storage: Storage,
  companyId: number,
  input: CreateEnrollmentBody,
  now: Date,
): Promise<CreatedEnrollment> {
  const agentUuid = input.agent_id?.toLowerCase() ?? null;
  if (agentUuid !== null) {
    if (input.uses !== 1) {
      throw invalidField(
        'uses',
        'A code that re-enrols an agent enrols it once: leave uses out, or set it to 1.',
      );
    }
    if (!(await agentKnown(storage.db, companyId, agentUuid))) {
      throw unknownReference('agent_id');
    }
  }
  const { code, compact } = newEnrollmentCode();
  const row = await storage.db
    .insertInto('print_enrollments')
    .values({
      company_id: companyId,
      code_hash: hashEnrollmentCode(compact),
      name: input.name ?? null,
      routes: JSON.stringify(input.routes),
      uses: input.uses,
      used: 0,
      expires_at: isoNow(new Date(now.getTime() + input.expires_in * 1000)),
      revoked_at: null,
      created_at: isoNow(now),
      agent_uuid: agentUuid,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const [record] = await recordsOf(storage.db, [row], now);
  return { ...record!, code };
}

/** The company's codes, newest first. */
export async function listEnrollments(
  db: Db,
  companyId: number,
  page: PageQuery,
  now: Date,
): Promise<{ rows: EnrollmentRecord[]; total: number }> {
  const base = db.selectFrom('print_enrollments').where('company_id', '=', companyId);
  const { rows, total } = await readPage(base, page, (list) =>
    list.selectAll().orderBy('id', 'desc'),
  );
  return { rows: await recordsOf(db, rows, now), total };
}

/**
 * Revokes a code at once: no agent enrols with it any more. The agents it enrolled keep
 * their tokens (revoke those with `shopdesk token revoke`). Revoking twice changes nothing.
 */
export async function revokeEnrollment(
  storage: Storage,
  /** The caller's company; null for the operator's command line, which may revoke any. */
  companyId: number | null,
  id: number,
  now: Date,
): Promise<EnrollmentRecord> {
  const db = storage.db;
  let update = db
    .updateTable('print_enrollments')
    .set({ revoked_at: isoNow(now) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null);
  if (companyId !== null) update = update.where('company_id', '=', companyId);
  await update.execute();
  let select = db.selectFrom('print_enrollments').selectAll().where('id', '=', id);
  if (companyId !== null) select = select.where('company_id', '=', companyId);
  const row = await select.executeTakeFirst();
  if (!row) throw new NotFound('Enrolment code');
  const [record] = await recordsOf(db, [row], now);
  return record!;
}

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimManyText } from '../../server/printing/store/postgres/claim-many.ts';
import { confirmManyText } from '../../server/printing/store/postgres/confirm-job.ts';
import { failManyText } from '../../server/printing/store/postgres/fail-job.ts';
import { isoNow } from '../../server/time.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent } from './helpers.ts';

/**
 * The batch claim, confirm and fail (claim-many.ts, holder-changes.ts) run as named
 * statements, so PostgreSQL may keep one generic plan for them, made on whatever statistics
 * it had then. Their `UPDATE`s must find the jobs by id even then: with the status written
 * as a literal, the plan read a partial index whole (every queued job, or every claimed
 * one). Here the jobs table is filled and never analysed, as in a busy first hour.
 */

let database: FreshDatabase;
let server: TestServer;
let client: pg.Client;

beforeAll(async () => {
  database = await freshDatabase();
  server = await startTestServer({ database: { kind: 'postgres', url: database.url } });
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await server?.close();
  await database?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The generic plan PostgreSQL makes for `text` with these parameters (as SQL literals). */
async function genericPlan(text: string, types: string[], literals: string[]): Promise<PlanNode> {
  await client.query('begin');
  try {
    await client.query('set local plan_cache_mode = force_generic_plan');
    await client.query(`prepare batch(${types.join(', ')}) as ${text}`);
    const result = await client.query(
      `explain (format json) execute batch(${literals.join(', ')})`,
    );
    return (result.rows[0]['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan;
  } finally {
    await client.query('rollback');
    await client.query('deallocate all');
  }
}

/**
 * How the UPDATE of print_jobs reaches its rows: the indexes its plan reads, and "Seq Scan"
 * when it reads the table whole.
 */
function updateAccess(plan: PlanNode): string[] {
  const access = new Set<string>();
  const walk = (node: PlanNode, inUpdate: boolean) => {
    const update =
      inUpdate || (node['Node Type'] === 'ModifyTable' && node['Relation Name'] === 'print_jobs');
    if (update && node['Index Name']) access.add(node['Index Name']);
    if (update && node['Node Type'] === 'Seq Scan') access.add(`Seq Scan ${node['Relation Name']}`);
    for (const child of node.Plans ?? []) walk(child, update);
  };
  walk(plan, false);
  return [...access];
}

const array = (values: (string | number)[]) => `'{${values.join(',')}}'`;

describe('the batch statements on PostgreSQL, under a generic plan', () => {
  it('find the jobs they update by id, with thousands queued or claimed', async () => {
    const company = await server.createCompany();
    const integrator = await integratorToken(server, company);
    const agent = await registerAgent(server, company, ['plans']);
    const first = await createJob(server, integrator, { route: 'plans' });
    // 3,000 more queued jobs and 3,000 claimed ones, written at once, never analysed.
    for (const status of ['queued', 'claimed']) {
      await client.query(
        `insert into print_jobs (company_id, document_id, route, title, status, content_type, size,
           sha256, copies, priority, options, attempts, agent_id, created_at, updated_at)
         select company_id, document_id, route, title, $1, content_type, size, sha256, copies,
           priority, options, attempts, $2, created_at, updated_at
         from print_jobs, generate_series(1, 3000) where id = $3`,
        [status, status === 'claimed' ? agent.uuid : null, first.id],
      );
    }
    const agentRow = await client.query('select id from print_agents where uuid = $1', [
      agent.uuid,
    ]);
    const now = isoNow();

    const claimAccess = updateAccess(
      await genericPlan(
        claimManyText,
        ['integer[]', 'integer[]', 'text[]', 'text[]', 'text[]'],
        [
          array([company, company]),
          array([agentRow.rows[0].id, agentRow.rows[0].id]),
          array([agent.uuid, agent.uuid]),
          array([now, now]),
          array([now, now]),
        ],
      ),
    );
    expect(claimAccess).toEqual(['print_jobs_pkey']);

    const confirmAccess = updateAccess(
      await genericPlan(
        confirmManyText,
        ['integer[]', 'integer[]', 'text[]', 'text[]', 'text[]'],
        [
          array([first.id, first.id + 1]),
          array([company, company]),
          array([agent.uuid, agent.uuid]),
          array(['NULL', 'NULL']),
          array([now, now]),
        ],
      ),
    );
    expect(confirmAccess).toEqual(['print_jobs_pkey']);

    const failAccess = updateAccess(
      await genericPlan(
        failManyText,
        ['integer[]', 'integer[]', 'text[]', 'text[]', 'text[]', 'text[]'],
        [
          array([first.id, first.id + 1]),
          array([company, company]),
          array([agent.uuid, agent.uuid]),
          array(['jam', 'jam']),
          array(['NULL', 'NULL']),
          array([now, now]),
        ],
      ),
    );
    expect(failAccess).toEqual(['print_jobs_pkey']);
  });
});

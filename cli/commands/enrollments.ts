import { type Command, InvalidArgumentError } from 'commander';
import { companyExists } from '../../server/companies/read-companies.ts';
import { InvalidFields, NotFound } from '../../server/domain-errors.ts';
import {
  createEnrollment,
  listEnrollments,
  revokeEnrollment,
} from '../../server/enrollments/enrollments.ts';
import { defaultEnrollmentSeconds, maxEnrollmentSeconds } from '../../shared/enrollments.ts';
import { UsageError } from '../../shared/usage-error.ts';
import {
  agentUuid,
  duration,
  positiveInt,
  print,
  routeList,
  text,
  withDatabaseOptions,
  withStorage,
} from '../options.ts';

function expiresIn(value: string): number {
  const seconds = duration('--expires-in')(value);
  if (seconds < 60 || seconds > maxEnrollmentSeconds) {
    throw new InvalidArgumentError('--expires-in must be from 1 minute (1m) to 30 days (30d).');
  }
  return seconds;
}

/**
 * `enrollment create|list|revoke`: the codes IT hands to print agents (docs/it-guide.md,
 * "Enrol a PC"). `create` prints the code alone on stdout, for a script to pick up.
 */
export function registerEnrollmentCommands(program: Command): void {
  const enrollment = program
    .command('enrollment')
    .description('enrolment codes that print agents trade for their own token');
  withDatabaseOptions(
    enrollment
      .command('create')
      .description('make an enrolment code; prints the code alone on its line')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .option('--routes <r1,r2>', 'the routes the enrolled agents serve', routeList, [])
      .option('--expires-in <time>', 'how long it lasts: 15m, 8h, 7d (default 24h)', expiresIn)
      .option('--uses <n>', 'how many agents it enrols (default 1)', positiveInt('--uses'))
      .option('--name <name>', 'what it is for, e.g. "Shop 12 tills"', text('--name', 255))
      .option(
        '--agent <uuid>',
        're-enrol this agent of the company (its uuid): the code enrols it alone, once, and revokes its old tokens when used; without it, a code enrols new agents only',
        agentUuid,
      ),
  ).action(async (options) => {
    const created = await withStorage(
      options,
      async (storage) => {
        if (!(await companyExists(storage.db, options.company))) {
          throw new UsageError(`no company with id ${options.company}`, { pointsToHelp: false });
        }
        if (options.agent !== undefined && options.uses !== undefined && options.uses !== 1) {
          throw new UsageError('--agent makes a code that re-enrols one agent once: drop --uses');
        }
        try {
          return await createEnrollment(
            storage,
            options.company,
            {
              ...(options.name !== undefined && { name: options.name }),
              routes: options.routes,
              expires_in: options.expiresIn ?? defaultEnrollmentSeconds,
              uses: options.uses ?? 1,
              ...(options.agent !== undefined && { agent_id: options.agent }),
            },
            new Date(),
          );
        } catch (error) {
          if (error instanceof InvalidFields && error.errors.agent_id) {
            throw new UsageError(
              `no agent ${options.agent} in company ${options.company}: --agent names an agent that has registered (see GET /printing/agents) or holds a token of its own`,
              { pointsToHelp: false },
            );
          }
          throw error;
        }
      },
      { existing: true },
    );
    print(created.code);
    process.stderr.write(
      `enrolment code ${created.id}: ${created.agent_id ? `re-enrols agent ${created.agent_id} (its old tokens are revoked when it is used)` : `${created.uses} ${created.uses === 1 ? 'use' : 'uses'}`}, expires ${created.expires_at}${created.routes.length ? `, routes ${created.routes.join(',')}` : ''}\n`,
    );
  });
  withDatabaseOptions(
    enrollment
      .command('list')
      .description("list a company's enrolment codes (never the codes themselves)")
      .requiredOption('--company <id>', 'company id', positiveInt('--company')),
  ).action(async (options) => {
    const { rows } = await withStorage(
      options,
      (storage) =>
        listEnrollments(storage.db, options.company, { page: 1, per_page: 100 }, new Date()),
      { existing: true },
    );
    for (const row of rows) {
      const agents = row.agents.map((agent) => agent.id).join(',');
      print(
        `${row.id}\t${row.state}\t${row.used}/${row.uses}\texpires ${row.expires_at}\t${row.routes.join(',') || '-'}\t${row.name ?? ''}${row.agent_id ? `\tre-enrols ${row.agent_id}` : ''}${agents ? `\tagents ${agents}` : ''}`,
      );
    }
  });
  withDatabaseOptions(
    enrollment
      .command('revoke')
      .description('revoke an enrolment code at once (the agents it enrolled keep their tokens)')
      .argument('<id>', 'enrolment code id (enrollment list)', positiveInt('enrolment code id')),
  ).action(async (id: number, options) => {
    await withStorage(
      options,
      async (storage) => {
        try {
          await revokeEnrollment(storage, null, id, new Date());
        } catch (error) {
          if (error instanceof NotFound)
            throw new UsageError(`no enrolment code with id ${id}`, { pointsToHelp: false });
          throw error;
        }
      },
      { existing: true },
    );
    print(`revoked enrolment code ${id}`);
  });
}

import type { Command } from 'commander';
import { createCompany } from '../../server/companies/create-company.ts';
import { companyExists } from '../../server/companies/read-companies.ts';
import { createCategory } from '../../server/products/create-category.ts';
import { createWarehouse } from '../../server/stock/create-warehouse.ts';
import type { Storage } from '../../server/storage/database.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { listTokens } from '../../server/tokens/list-tokens.ts';
import { parsePermissionList } from '../../server/tokens/permission-list.ts';
import { revokeToken } from '../../server/tokens/revoke-token.ts';
import { UsageError } from '../../shared/usage-error.ts';
import {
  agentUuid,
  positiveInt,
  print,
  routeList,
  text,
  withDatabaseOptions,
  withStorage,
} from '../options.ts';

async function requireCompany(storage: Storage, id: number): Promise<void> {
  if (!(await companyExists(storage.db, id)))
    throw new UsageError(`no company with id ${id}`, { pointsToHelp: false });
}

/** `company`, `token`, `warehouse` and `category`: what an operator sets up by hand. */
export function registerRecordCommands(program: Command): void {
  registerCompanyCommands(program);
  registerTokenCommands(program);
  registerWarehouseCommands(program);
  registerCategoryCommands(program);
}

/** `company create`. */
function registerCompanyCommands(program: Command): void {
  const company = program.command('company').description('companies');
  withDatabaseOptions(
    company
      .command('create')
      .description('create a company; prints its id')
      .requiredOption('--name <name>', 'company name', text('--name', 255)),
    { creates: true },
  ).action(async (options) => {
    print(String(await withStorage(options, (storage) => createCompany(storage.db, options.name))));
  });
}

/** `token create`, `token list` and `token revoke`. */
function registerTokenCommands(program: Command): void {
  const token = program.command('token').description('integration tokens');
  registerTokenCreate(token);
  registerTokenList(token);
  registerTokenRevoke(token);
}

function registerTokenCreate(token: Command): void {
  withDatabaseOptions(
    token
      .command('create')
      .description('issue a token; prints it once (only its hash is stored)')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--permissions <list>', 'comma-separated permission names, or * for all')
      .option('--name <name>', 'what the token is for', text('--name', 255))
      .option('--expires-in <days>', 'days until it expires', positiveInt('--expires-in'))
      .option(
        '--agent <uuid>',
        'bind the token to the print agent of this uuid: it may act as that agent only',
        agentUuid,
      )
      .option(
        '--routes <r1,r2>',
        'with --agent: the routes the token may give its agent beyond those it serves',
        routeList,
      ),
  ).action(async (options) => {
    let permissions: ReturnType<typeof parsePermissionList>;
    try {
      permissions = parsePermissionList(options.permissions);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (options.agent && !permissions.includes('printing.agent')) {
      throw new UsageError(
        '--agent binds a print-agent token: --permissions must include printing.agent',
      );
    }
    if (options.routes && !options.agent) {
      throw new UsageError(
        '--routes grants routes to a token bound to one agent: give --agent UUID too (an unbound agent token may serve any route)',
      );
    }
    const issued = await withStorage(
      options,
      async (storage) => {
        await requireCompany(storage, options.company);
        return createToken(storage.db, {
          companyId: options.company,
          permissions,
          name: options.name ?? 'integration',
          expiresInDays: options.expiresIn,
          agentUuid: options.agent,
          routes: options.routes,
        });
      },
      { existing: true },
    );
    print(issued.secret);
  });
}

function registerTokenList(token: Command): void {
  withDatabaseOptions(
    token
      .command('list')
      .description("list a company's tokens (never their secrets)")
      .requiredOption('--company <id>', 'company id', positiveInt('--company')),
  ).action(async (options) => {
    const tokens = await withStorage(
      options,
      async (storage) => {
        await requireCompany(storage, options.company);
        return listTokens(storage.db, options.company);
      },
      { existing: true },
    );
    // A header row, so a person knows the columns; a script skips the first line.
    print('ID\tNAME\tSTATE\tPERMISSIONS\tAGENT\tROUTES');
    for (const t of tokens) {
      const state = t.revoked_at
        ? `revoked ${t.revoked_at}`
        : t.expires_at
          ? `expires ${t.expires_at}`
          : 'active';
      const routes = t.routes.join(',') || '-';
      print(
        `${t.id}\t${t.name}\t${state}\t${t.permissions.join(',')}\t${t.agent_uuid ?? '-'}\t${routes}`,
      );
    }
  });
}

function registerTokenRevoke(token: Command): void {
  withDatabaseOptions(
    token
      .command('revoke')
      .description('revoke a token at once')
      .argument('<id>', 'token id', positiveInt('token id')),
  ).action(async (id: number, options) => {
    const revoked = await withStorage(options, (storage) => revokeToken(storage.db, id), {
      existing: true,
    });
    if (!revoked) throw new UsageError(`no active token with id ${id}`, { pointsToHelp: false });
    print(`revoked token ${id}`);
  });
}

/** `warehouse create`. */
function registerWarehouseCommands(program: Command): void {
  withDatabaseOptions(
    program
      .command('warehouse')
      .description('warehouses')
      .command('create')
      .description('create a warehouse; prints its id')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--code <code>', 'warehouse code (max 20)', text('--code', 20))
      .option('--name <name>', 'warehouse name', text('--name', 255)),
  ).action(async (options) => {
    const id = await withStorage(
      options,
      async (storage) => {
        await requireCompany(storage, options.company);
        try {
          return await createWarehouse(storage.db, {
            companyId: options.company,
            code: options.code,
            name: options.name ?? options.code,
          });
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      },
      { existing: true },
    );
    print(String(id));
  });
}

/** `category create`. */
function registerCategoryCommands(program: Command): void {
  withDatabaseOptions(
    program
      .command('category')
      .description('product categories')
      .command('create')
      .description('create a category; prints its id')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--name <name>', 'category name', text('--name', 255)),
  ).action(async (options) => {
    const id = await withStorage(
      options,
      async (storage) => {
        await requireCompany(storage, options.company);
        return createCategory(storage.db, { companyId: options.company, name: options.name });
      },
      { existing: true },
    );
    print(String(id));
  });
}

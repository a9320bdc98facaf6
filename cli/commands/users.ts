import { type Command, InvalidArgumentError } from 'commander';
import { companyExists } from '../../server/companies/read-companies.ts';
import { createUser } from '../../server/console/create-user.ts';
import { deleteUser } from '../../server/console/delete-user.ts';
import { listUsers } from '../../server/console/list-users.ts';
import { setPassword } from '../../server/console/set-password.ts';
import {
  type ConsoleRole,
  consoleRoles,
  emailSchema,
  passwordSchema,
} from '../../shared/console.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { positiveInt, print, withDatabaseOptions, withStorage } from '../options.ts';

function role(value: string): ConsoleRole {
  if (!(consoleRoles as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`--role must be one of ${consoleRoles.join(', ')}.`);
  }
  return value as ConsoleRole;
}

function email(value: string): string {
  const parsed = emailSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError('--email must be an e-mail address.');
  return parsed.data;
}

/** The whole of standard input, its final line break dropped: a password piped in. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * `user create|list|remove`: the people who sign in to the web console (docs/console.md).
 * `create` prints the one-time link that sets the password, or with `--password-stdin`
 * sets it from standard input (scripts) and prints the user's id.
 */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('people who sign in to the web console');
  withDatabaseOptions(
    user
      .command('create')
      .description('add a console user; prints the one-time link that sets the password')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--email <address>', 'their e-mail address (they sign in with it)', email)
      .requiredOption('--role <role>', `${consoleRoles.join(', ')}`, role)
      .option('--password-stdin', 'set the password from standard input instead of a link')
      .option(
        '--url <address>',
        'where the console is reached, for the link (env SHOPDESK_PUBLIC_URL; default http://localhost:8080)',
      ),
  ).action(async (options) => {
    const password = options.passwordStdin ? await readStdin() : undefined;
    if (password !== undefined && !passwordSchema.safeParse(password).success) {
      throw new UsageError('the password must be 10 to 1024 characters');
    }
    const made = await withStorage(
      options,
      async (storage) => {
        if (!(await companyExists(storage.db, options.company))) {
          throw new UsageError(`no company with id ${options.company}`);
        }
        const created = await createUser(storage.db, {
          companyId: options.company,
          email: options.email,
          role: options.role,
        }).catch((error: Error) => {
          throw new UsageError(`${options.email}: ${error.message}`);
        });
        if (password !== undefined)
          await setPassword(storage, storage.db, created.user.id, password);
        return created;
      },
      { existing: true },
    );
    if (password !== undefined) {
      print(String(made.user.id));
      return;
    }
    const base = (
      options.url ??
      process.env.SHOPDESK_PUBLIC_URL ??
      'http://localhost:8080'
    ).replace(/\/+$/, '');
    print(`${base}/console/set-password#code=${made.setupCode}`);
  });
  withDatabaseOptions(
    user
      .command('list')
      .description("list a company's console users")
      .requiredOption('--company <id>', 'company id', positiveInt('--company')),
  ).action(async (options) => {
    const users = await withStorage(options, (storage) => listUsers(storage.db, options.company), {
      existing: true,
    });
    for (const one of users) {
      print(`${one.id}\t${one.email}\t${one.role}\t${one.active ? 'active' : 'invited'}`);
    }
  });
  withDatabaseOptions(
    user
      .command('remove')
      .description('remove a console user; their sessions end at once')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .argument('<id>', 'user id', positiveInt('user id')),
  ).action(async (id: number, options) => {
    await withStorage(options, (storage) => deleteUser(storage, storage.db, options.company, id), {
      existing: true,
    });
    print(`removed user ${id}`);
  });
}

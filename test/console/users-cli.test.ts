import { spawn } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  bin,
  cleanEnv,
  expectUsageError,
  ok,
  scratchDir,
  shopdesk,
} from '../helpers/shopdesk-cli.ts';

/** `shopdesk user create|list|remove`: the console's people, set up from the command line. */
describe('shopdesk user', () => {
  const dir = scratchDir();
  const db = join(dir, 'users.sqlite');

  it('prints a one-time link to set the password, and lists the user as invited', async () => {
    await ok('company', 'create', '--name', 'Users Co', '--db', db, '--create');
    const link = (
      await ok(
        'user',
        'create',
        '--company',
        '1',
        '--email',
        'Ana@Shop.example',
        '--role',
        'manager',
        '--db',
        db,
        '--url',
        'https://shop.example/',
      )
    ).trim();
    expect(link).toMatch(/^https:\/\/shop\.example\/console\/set-password#code=[\w-]{43}$/);
    const listed = await ok('user', 'list', '--company', '1', '--db', db);
    expect(listed).toMatch(/^1\tana@shop\.example\tmanager\tinvited$/m);
  });

  it('refuses an unknown role, a second account for one address and an unknown company', async () => {
    expectUsageError(
      await shopdesk(
        'user',
        'create',
        '--company',
        '1',
        '--email',
        'b@shop.example',
        '--role',
        'admin',
        '--db',
        db,
      ),
      /--role must be one of owner, manager, staff/,
    );
    expectUsageError(
      await shopdesk(
        'user',
        'create',
        '--company',
        '1',
        '--email',
        'ana@shop.example',
        '--role',
        'staff',
        '--db',
        db,
      ),
      /already been taken/,
    );
    expectUsageError(
      await shopdesk(
        'user',
        'create',
        '--company',
        '9',
        '--email',
        'c@shop.example',
        '--role',
        'staff',
        '--db',
        db,
      ),
      /no company with id 9/,
    );
  });

  it('takes the password from standard input with --password-stdin', async () => {
    const child = spawn(
      process.execPath,
      [
        bin,
        'user',
        'create',
        '--company',
        '1',
        '--email',
        'script@shop.example',
        '--role',
        'staff',
        '--password-stdin',
        '--db',
        db,
      ],
      { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stdin.end('a password from a script\n');
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+$/);
    const listed = await ok('user', 'list', '--company', '1', '--db', db);
    expect(listed).toMatch(/\tscript@shop\.example\tstaff\tactive$/m);
    // Kept as the server keeps every password: scrypt at N=2^15, r=8, p=1, with a salt.
    const file = new BetterSqlite3(db, { readonly: true });
    const { password_hash: stored } = file
      .prepare('select password_hash from console_users where email = ?')
      .get('script@shop.example') as { password_hash: string };
    file.close();
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    const removed = await ok('user', 'remove', stdout.trim(), '--company', '1', '--db', db);
    expect(removed).toBe(`removed user ${stdout.trim()}\n`);
  });
});

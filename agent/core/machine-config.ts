import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { normalizeEnrollmentCode } from '../../shared/enrollments.ts';
import { printerProfileSchema } from '../../shared/printer-profiles.ts';
import { maxBackupPrinters, routeNameSchema } from '../../shared/printing.ts';
import { releaseChannels } from '../../shared/releases.ts';

/**
 * The machine-wide configuration IT pushes to every PC (GPO, Intune, Ansible, an MDM):
 * `/etc/shopdesk/agent.json`, `%ProgramData%\ShopDesk\agent.json`,
 * `/Library/Application Support/ShopDesk/agent.json`, or the file `--config` names. Both the
 * headless agent and the tray read it. Every refusal names the file, the field and the fix
 * (docs/it-guide.md, "Push a configuration").
 */

/** Where the machine-wide file lives on each OS. */
export function machineConfigPath(
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
): string {
  if (platform === 'win32') {
    return join(
      env['ProgramData'] ?? env['PROGRAMDATA'] ?? 'C:\\ProgramData',
      'ShopDesk',
      'agent.json',
    );
  }
  if (platform === 'darwin') return '/Library/Application Support/ShopDesk/agent.json';
  return '/etc/shopdesk/agent.json';
}

const serverField = z
  .string({ error: 'must be text: the server\'s address, e.g. "https://shopdesk.example.com"' })
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        !url.username &&
        !url.password &&
        !url.search
      );
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// address without a password or query; write the server\'s address, e.g. "https://shopdesk.example.com"');

const printerField = z
  .string({ error: 'must be text: the printer\'s name on this computer, e.g. "EPSON_TM_T20"' })
  .min(1, 'must not be empty; write the printer\'s name on this computer, e.g. "EPSON_TM_T20"')
  .max(255, "is longer than a printer name (255 characters); write the printer's name");

/** A route's printers in the order tried: the first, then its backups (docs/agent.md). */
const printerList = z
  .array(
    printerField.refine((name) => !name.includes(','), 'must not contain a comma'),
    {
      error: 'must be a printer\'s name, or a list of them, e.g. ["Front-1", "Front-2"]',
    },
  )
  .min(1, 'is an empty list; name at least one printer')
  .refine(
    (list) => list.length <= maxBackupPrinters + 1,
    `names more than ${maxBackupPrinters + 1} printers (the first and ${maxBackupPrinters} backups)`,
  );

export const machineConfigSchema = z.strictObject(
  {
    server: serverField.optional(),
    enrollmentCode: z
      .string({ error: 'must be text: the code `shopdesk enrollment create` printed' })
      .refine(
        (value) => normalizeEnrollmentCode(value) !== null,
        'is not an enrolment code; copy the code `shopdesk enrollment create` printed, e.g. "K7QF-M2XD"',
      )
      .optional(),
    tokenFile: z
      .string({ error: 'must be text: the path of a file holding the token' })
      .refine(
        (value) => isAbsolute(value),
        'must be an absolute path to a file holding the token alone, e.g. "/etc/shopdesk/agent-token"',
      )
      .optional(),
    /** The tray's earlier way: the token itself (moved into its encrypted settings at once). */
    token: z
      .string({ error: 'must be text: the token itself' })
      .regex(/^[\x21-\x7e]{1,4096}$/, 'must be the token alone, one word; or use tokenFile')
      .optional(),
    routes: z
      .record(z.string().pipe(routeNameSchema).or(z.never()), printerField.or(printerList), {
        error:
          'must be an object of route name → printer, or a list of printers tried in order, e.g. {"receipts": ["Front-1", "Front-2"]}',
      })
      .refine((routes) => Object.keys(routes).length <= 100, 'has more than 100 routes')
      .optional(),
    /** A route's printer profile (docs/templates.md), for a route of `routes`. */
    profiles: z
      .record(z.string().pipe(routeNameSchema).or(z.never()), printerProfileSchema, {
        error:
          'must be an object of route name → printer profile, e.g. {"receipts": {"language": "escpos", "width_mm": 80}}',
      })
      .optional(),
    name: z
      .string({ error: 'must be text: how this agent shows on the server' })
      .min(1, "must not be empty; leave it out to use the computer's name")
      .max(255, 'must be at most 255 characters')
      .optional(),
    stateDir: z
      .string({ error: 'must be text: a directory' })
      .refine(
        (value) => isAbsolute(value),
        'must be an absolute path, e.g. "/var/lib/shopdesk-agent"',
      )
      .optional(),
    updateChannel: z
      .enum(releaseChannels, { error: `must be one of ${releaseChannels.join(', ')}` })
      .optional(),
    startAtLogin: z.boolean({ error: 'must be true or false (no quotes)' }).optional(),
    autoUpdate: z.boolean({ error: 'must be true or false (no quotes)' }).optional(),
  },
  { error: (issue) => unknownKeyMessage(issue) },
);
export type MachineConfig = z.infer<typeof machineConfigSchema>;

const knownKeys = Object.keys(machineConfigSchema.shape).join(', ');

function unknownKeyMessage(issue: { code?: string; keys?: string[] }): string | undefined {
  if (issue.code === 'unrecognized_keys') {
    return `is not a setting; remove it or correct its spelling (settings: ${knownKeys})`;
  }
  if (issue.code === 'invalid_type') {
    return `must be a JSON object of settings, e.g. {"server": "https://shopdesk.example.com"}`;
  }
  return undefined;
}

/** A file that cannot be used, with one line per problem: `FILE: FIELD: what is wrong; fix`. */
export class MachineConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

/** Checks a file's text; every problem is one line naming the file, the field and the fix. */
export function parseMachineConfig(file: string, text: string): MachineConfig {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new MachineConfigError([
      `${file}: not valid JSON (${(error as Error).message}); fix the syntax (a JSON checker shows where)`,
    ]);
  }
  const parsed = machineConfigSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `${file}: ${key}: ${issue.message}`);
      }
      const field = issue.path.length > 0 ? issue.path.join('.') : '(the whole file)';
      const message =
        issue.code === 'invalid_key'
          ? 'is not a route name: 1 to 64 characters of a-z, 0-9, ".", "_" or "-"; rename it'
          : issue.message;
      return [`${file}: ${field}: ${message}`];
    });
    throw new MachineConfigError(problems);
  }
  const config = parsed.data;
  const tokenSources = (['enrollmentCode', 'tokenFile', 'token'] as const).filter(
    (key) => config[key] !== undefined,
  );
  if (tokenSources.length > 1) {
    throw new MachineConfigError([
      `${file}: ${tokenSources.join(', ')}: give one way to the token, not ${tokenSources.length}; keep enrollmentCode for a new PC, or tokenFile for a token you placed`,
    ]);
  }
  const unmapped = Object.keys(config.profiles ?? {}).filter(
    (name) => config.routes?.[name] === undefined,
  );
  if (unmapped.length > 0) {
    throw new MachineConfigError(
      unmapped.map(
        (name) =>
          `${file}: profiles.${name}: names a route that "routes" does not map to a printer; add it to routes or remove its profile`,
      ),
    );
  }
  return config;
}

/**
 * Reads the file: null when there is none (the machine-wide file is optional; a file named
 * by `--config` must exist, `required`).
 */
export async function readMachineConfig(
  file: string,
  { required = false }: { required?: boolean } = {},
): Promise<MachineConfig | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return null;
    const why =
      code === 'ENOENT'
        ? 'no such file; check the path given to --config'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied; let the account that runs the agent read it'
          : (error as Error).message;
    throw new MachineConfigError([`${file}: cannot be read: ${why}`]);
  }
  return parseMachineConfig(file, text);
}

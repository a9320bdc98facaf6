import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { companyExists } from '../../server/companies/read-companies.ts';
import { InvalidFields, isDomainError } from '../../server/domain-errors.ts';
import { createTemplate } from '../../server/templates/create-template.ts';
import { previewTemplate } from '../../server/templates/preview-template.ts';
import { RenderPool } from '../../server/templates/render-pool.ts';
import { resolveTemplate } from '../../server/templates/resolve-template.ts';
import { printerProfileSchema } from '../../shared/printer-profiles.ts';
import { previewFormats, templateKinds, templateNameSchema } from '../../shared/templates.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { positiveInt, print, withDatabaseOptions, withStorage } from '../options.ts';

function readText(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
}

function readJson(flag: string, path: string): Record<string, unknown> {
  try {
    return JSON.parse(readText(flag, path)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${flag} ${path} is not JSON: ${(error as Error).message}`);
  }
}

function templateName(value: string): string {
  if (!templateNameSchema.safeParse(value).success) {
    throw new InvalidArgumentError(
      '--name must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".',
    );
  }
  return value;
}

function oneOf<T extends string>(flag: string, values: readonly T[]) {
  return (value: string): T => {
    if (!values.includes(value as T)) {
      throw new InvalidArgumentError(`${flag} must be one of ${values.join(', ')}.`);
    }
    return value as T;
  };
}

/** A refusal of the operation, as one line per field for the operator. */
function asUsageError(error: unknown): never {
  if (error instanceof InvalidFields) {
    const lines = Object.entries(error.errors).map(
      ([key, messages]) => `${key}: ${messages.join(' ')}`,
    );
    throw new UsageError(lines.join('\n'));
  }
  if (isDomainError(error)) throw new UsageError(error.message);
  throw error;
}

/** `--asset logo=logo.png`: the file's bytes in base64 under the name, added to the others. */
function assetOption(value: string, assets: Record<string, string>): Record<string, string> {
  const match = /^([a-z0-9._-]{1,64})=(.+)$/.exec(value);
  if (!match) {
    throw new InvalidArgumentError('expected NAME=PATH, a name of a-z, 0-9, ".", "_" or "-"');
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(match[2]!);
  } catch {
    throw new InvalidArgumentError(`cannot read ${match[2]}`);
  }
  return { ...assets, [match[1]!]: bytes.toString('base64') };
}

/** `template create` and `template preview` (docs/templates.md). */
export function registerTemplateCommands(program: Command): void {
  const template = program.command('template').description('receipt and label templates');
  withDatabaseOptions(
    template
      .command('create')
      .description("save a company's template (its version 1); prints its id")
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--name <name>', 'its name, unique in the company', templateName)
      .requiredOption('--kind <kind>', templateKinds.join(' | '), oneOf('--kind', templateKinds))
      .requiredOption('--file <path>', 'the template: ReceiptLine or ZPL with Liquid')
      .option('--schema <path>', 'a JSON Schema its data must match')
      .option('--sample <path>', 'sample data (JSON) for previews')
      .option(
        '--asset <name=path>',
        'an image (PNG or JPEG) printed by {% image "name" %}; repeatable',
        assetOption,
        {} as Record<string, string>,
      ),
  ).action(async (options) => {
    const source = readText('--file', options.file);
    const created = await withStorage(options, async (storage) => {
      if (!(await companyExists(storage.db, options.company))) {
        throw new UsageError(`no company with id ${options.company}`);
      }
      return createTemplate(
        storage,
        storage.db,
        options.company,
        {
          name: options.name,
          kind: options.kind,
          source,
          data_schema: options.schema ? readJson('--schema', options.schema) : null,
          sample_data: options.sample ? readJson('--sample', options.sample) : null,
          assets: options.asset,
        },
        new Date(),
      ).catch(asUsageError);
    });
    print(String(created.id));
  });

  withDatabaseOptions(
    template
      .command('preview')
      .description('render a template to a file, as POST /printing/templates/{id}/preview')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--name <name>', 'the template', templateName)
      .requiredOption('--out <path>', 'where to write the rendering')
      .option('--data <path>', "the data (JSON; default: the template's sample data)")
      .option(
        '--format <format>',
        `${previewFormats.join(' | ')} (default png)`,
        oneOf('--format', previewFormats),
      )
      .option(
        '--profile <json>',
        'the printer profile (default {"language":"escpos","width_mm":80})',
      ),
  ).action(async (options) => {
    let profile: unknown;
    if (options.profile !== undefined) {
      const parsed = printerProfileSchema.safeParse(
        (() => {
          try {
            return JSON.parse(options.profile);
          } catch {
            throw new UsageError('--profile must be JSON, as {"language":"escpos","width_mm":80}');
          }
        })(),
      );
      if (!parsed.success)
        throw new UsageError(
          `--profile is not a printer profile: ${parsed.error.issues[0]?.message}`,
        );
      profile = parsed.data;
    }
    const data = options.data ? readJson('--data', options.data) : undefined;
    const renderer = new RenderPool({ threads: 1 });
    const rendering = await withStorage(options, async (storage) => {
      const version = await resolveTemplate(storage.db, options.company, options.name).catch(
        asUsageError,
      );
      return previewTemplate(renderer, storage.db, options.company, version.template_id, {
        format: options.format ?? 'png',
        ...(data && { data }),
        ...(profile !== undefined && { profile: profile as never }),
      }).catch(asUsageError);
    }).finally(() => renderer.close());
    writeFileSync(options.out, rendering.bytes);
    print(`${options.out}: ${rendering.contentType}, ${rendering.bytes.length} bytes`);
  });
}

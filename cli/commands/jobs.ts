import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { companyExists } from '../../server/companies/read-companies.ts';
import { createJob } from '../../server/printing/jobs/create-job.ts';
import { PrintJobChanges } from '../../server/printing/jobs/job-changes.ts';
import { openQueueStore } from '../../server/printing/store/open-queue-store.ts';
import { RenderPool } from '../../server/templates/render-pool.ts';
import { TemplateJobRenderer } from '../../server/templates/template-job-renderer.ts';
import { WebhookOutbox } from '../../server/webhooks/outbox.ts';
import { startsAsPdf } from '../../shared/pdf-content.ts';
import {
  type ContentType,
  contentTypeSchema,
  contentTypes,
  routeNameSchema,
} from '../../shared/printing.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { positiveInt, print, text, withDatabaseOptions, withStorage } from '../options.ts';

/** What the extension says the file is, when --content-type is not given. */
const contentTypeByExtension: Record<string, ContentType> = {
  '.pdf': 'application/pdf',
  '.zpl': 'application/vnd.zebra.zpl',
  '.txt': 'text/plain',
  '.escpos': 'application/vnd.escpos',
  '.bin': 'application/vnd.escpos',
};

/** The largest document POST /printing/jobs takes (16 MiB of JSON, base64 inside). */
export const maxDocumentBytes = 12 * 1024 * 1024;

function routeName(value: string): string {
  if (!routeNameSchema.safeParse(value).success) {
    throw new InvalidArgumentError(
      '--route must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".',
    );
  }
  return value;
}

function contentType(value: string): ContentType {
  const parsed = contentTypeSchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidArgumentError(`--content-type must be one of ${contentTypes.join(', ')}.`);
  }
  return parsed.data;
}

function copies(value: string): number {
  const n = positiveInt('--copies')(value);
  if (n > 99) throw new InvalidArgumentError('--copies must be at most 99.');
  return n;
}

function readDocument(path: string): Buffer {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile())
      throw new UsageError(`--file ${path} is not a file`, { pointsToHelp: false });
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `cannot read --file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  if (size === 0) throw new UsageError(`--file ${path} is empty`, { pointsToHelp: false });
  if (size > maxDocumentBytes) {
    throw new UsageError(`--file ${path} is larger than ${maxDocumentBytes / 1024 / 1024} MiB`, {
      pointsToHelp: false,
    });
  }
  return readFileSync(path);
}

/** `job create`: queues a print job from a file, as POST /printing/jobs would. */
export function registerJobCommands(program: Command): void {
  const job = program.command('job').description('print jobs');
  withDatabaseOptions(
    job
      .command('create')
      .description('queue a print job from a file; prints its id')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--route <name>', 'route to print on (receipts, labels, a4, ...)', routeName)
      .requiredOption('--file <path>', 'the document to print')
      .option('--copies <n>', 'copies, 1 to 99 (default 1)', copies)
      .option(
        '--content-type <type>',
        `${contentTypes.join(' | ')} (default: from the extension .pdf .zpl .txt .escpos .bin)`,
        contentType,
      )
      .option('--title <title>', 'title shown in the history', text('--title', 255)),
  ).action(async (options) => {
    const type: ContentType | undefined =
      options.contentType ?? contentTypeByExtension[extname(options.file).toLowerCase()];
    if (!type) {
      throw new UsageError(
        `cannot tell the content type of ${options.file} from its extension; give --content-type`,
      );
    }
    const content = readDocument(options.file);
    if (type === 'application/pdf' && !startsAsPdf(content)) {
      throw new UsageError(
        `--file ${options.file} is not a PDF (it does not start with %PDF-); give the right --content-type`,
      );
    }
    const created = await withStorage(options, async (storage) => {
      if (!(await companyExists(storage.db, options.company))) {
        throw new UsageError(`no company with id ${options.company}`, { pointsToHelp: false });
      }
      // No agent waits in this process: the server hears of the job through NOTIFY
      // (PostgreSQL) or its watch of SQLite's data_version, so there is nobody to wake here.
      // Its events go to the outbox like the server's (the server's dispatcher sends them).
      const outbox = new WebhookOutbox(storage);
      const changes = new PrintJobChanges(outbox, () => {});
      // Making a job renders nothing: the pool's threads never start.
      const renderer = new TemplateJobRenderer(new RenderPool());
      return createJob(
        { storage, store: openQueueStore(storage, changes), outbox, renderer },
        storage.db,
        options.company,
        {
          route: options.route,
          title: options.title,
          content_type: type,
          content,
          copies: options.copies ?? 1,
          priority: 5,
          options: {},
        },
        new Date(),
      );
    });
    print(String(created.id));
  });
}

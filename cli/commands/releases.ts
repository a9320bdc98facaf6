import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { Conflict } from '../../server/domain-errors.ts';
import { addRelease } from '../../server/releases/add-release.ts';
import { completeReleases, setRollout } from '../../server/releases/releases.ts';
import { releaseChannels, releasePlatforms, releaseVersionSchema } from '../../shared/releases.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { positiveInt, print, withDatabaseOptions, withStorage } from '../options.ts';

function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`${name} must be one of ${values.join(', ')}.`);
    }
    return value as T;
  };
}

function percent(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 100) {
    throw new InvalidArgumentError('--rollout must be a whole percentage from 0 to 100.');
  }
  return Number(value);
}

function version(value: string): string {
  if (!releaseVersionSchema.safeParse(value).success) {
    throw new InvalidArgumentError('--version must be a version such as 1.2.3 or 1.3.0-beta.1.');
  }
  return value;
}

/** `release add|list|rollout`: agent builds the server offers to the tray's updater. */
export function registerReleaseCommands(program: Command): void {
  const release = program.command('release').description('print agent builds offered as updates');
  withDatabaseOptions(
    release
      .command('add')
      .description(
        'publish an agent build (the installer electron-builder made); read as it is stored, never whole',
      )
      .requiredOption('--file <file>', 'the installer: .exe (win), .zip (mac), .AppImage (linux)')
      .requiredOption('--version <version>', 'its version, as in package.json', version)
      .requiredOption(
        '--platform <platform>',
        'win, mac or linux',
        oneOf('--platform', releasePlatforms),
      )
      .option(
        '--channel <channel>',
        'stable (default) or beta',
        oneOf('--channel', releaseChannels),
      )
      .option(
        '--rollout <percent>',
        'the share of agents offered it, 0 to 100 (default 100)',
        percent,
      ),
  ).action(async (options) => {
    const info = await stat(options.file).catch(() => null);
    if (!info?.isFile())
      throw new UsageError(`--file ${options.file} is not a file`, { pointsToHelp: false });
    const fileName = basename(options.file);
    if (!/^[A-Za-z0-9._-]{1,255}$/.test(fileName)) {
      throw new UsageError(
        `--file's name ${fileName} must be letters, digits, ".", "_" or "-" (it is part of the download URL)`,
      );
    }
    const row = await withStorage(
      options,
      async (storage) => {
        try {
          return await addRelease(
            storage,
            {
              version: options.version,
              platform: options.platform,
              channel: options.channel ?? 'stable',
              fileName,
              rollout: options.rollout ?? 100,
              content: createReadStream(options.file, { highWaterMark: 1024 * 1024 }),
            },
            new Date(),
          );
        } catch (error) {
          if (error instanceof Conflict) {
            throw new UsageError(error.message, { pointsToHelp: false });
          }
          throw error;
        }
      },
      { existing: true },
    );
    print(String(row.id));
    process.stderr.write(
      `release ${row.id}: ${row.version} for ${row.platform} on ${row.channel}, ${row.size} bytes, rollout ${row.rollout} %, sha512 ${row.sha512}\n`,
    );
  });
  withDatabaseOptions(
    release.command('list').description('list the published agent builds'),
  ).action(async (options) => {
    const rows = await withStorage(options, (storage) => completeReleases(storage.db), {
      existing: true,
    });
    for (const row of rows) {
      print(
        `${row.id}\t${row.version}\t${row.platform}\t${row.channel}\t${row.rollout}%\t${row.size}\t${row.file_name}`,
      );
    }
  });
  withDatabaseOptions(
    release
      .command('rollout')
      .description('change the share of agents a build is offered to')
      .argument('<id>', 'release id (release list)', positiveInt('release id'))
      .argument('<percent>', '0 to 100', percent),
  ).action(async (id: number, share: number, options) => {
    const changed = await withStorage(options, (storage) => setRollout(storage, id, share), {
      existing: true,
    });
    if (!changed) throw new UsageError(`no release with id ${id}`, { pointsToHelp: false });
    print(`release ${id} is offered to ${share} % of agents`);
  });
}

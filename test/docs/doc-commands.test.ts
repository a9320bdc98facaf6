import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { projectNames } from '../projects.ts';

/**
 * Every command the docs write (`shopdesk …`, `npm run …`, `npx tsx …`, `npx vitest …`, in
 * code spans and code blocks of docs/*.md and README.md) names what exists: the `shopdesk`
 * commands, subcommands and options of the program itself (cli/main.ts, with the agent's),
 * package.json's scripts, the files a script or `tsx` runs and the options that file reads,
 * the test files and Vitest projects. Words in capitals (`ID`, `FILE`) and `…` stand for
 * what the reader fills in.
 */
const root = resolve(import.meta.dirname, '../..');
const docFiles = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The code a doc shows: each line of its code blocks (`\` continuations joined), each span. */
function codeOf(markdown: string): string[] {
  const code: string[] = [];
  const prose = markdown.replace(/^```[^\n]*\n([\s\S]*?)^```/gm, (_block, body: string) => {
    code.push(...body.replace(/\\\n\s*/g, ' ').split('\n'));
    return '';
  });
  for (const match of prose.matchAll(/`([^`\n]+)`/g)) code.push(match[1]!);
  return code;
}

const starts =
  /(?:^|\$ |&& |; |\$\(|\()\s*(?:[A-Z_]+=\S*\s+)*(?:nice(?: -n \d+)?\s+|taskset -c \S+\s+)?(npx shopdesk|node bin\/shopdesk\.js|shopdesk|npm run|npm start|npm test|npx tsx|tsx|npx vitest)(?=\s|$)([^;&|)#]*)/g;

/** The commands a piece of code runs: the program and its words, placeholders left out. */
function commandsIn(code: string): { program: string; words: string[] }[] {
  return [...code.matchAll(starts)].map((match) => ({
    program: match[1]!.replace(/^npx shopdesk$|^node bin\/shopdesk\.js$/, 'shopdesk'),
    words: match[2]!
      .replace(/[[\]]/g, ' ')
      .split(/\s+/)
      .filter((word) => word !== ''),
  }));
}

/** A word the reader replaces: `ID`, `FILE`, `r1,r2`-like lists aside, or `…`. */
const isPlaceholder = (word: string) => /…|\.\.\./.test(word) || /^[A-Z][A-Z0-9_-]*$/.test(word);

function optionNames(command: Command): Set<string> {
  const names = new Set(['--help', '-h']);
  for (const option of command.options) {
    if (option.long) names.add(option.long);
    if (option.short) names.add(option.short);
  }
  return names;
}

/** What is wrong with a `shopdesk` command line, or null. */
function shopdeskProblem(words: string[]): string | null {
  let command: Command = buildProgram();
  const path = ['shopdesk'];
  let index = 0;
  for (; index < words.length; index++) {
    const sub = command.commands.find((c) => c.name() === words[index]);
    if (sub === undefined) break;
    command = sub;
    path.push(sub.name());
  }
  const next = words[index];
  if (
    next !== undefined &&
    !next.startsWith('-') &&
    !isPlaceholder(next) &&
    command.commands.length > 0
  ) {
    return `${path.join(' ')} has no command ${next}`;
  }
  const options = optionNames(command);
  for (const word of words.slice(index)) {
    const option = word.split('=')[0]!;
    if (option.startsWith('-') && !options.has(option)) {
      return `${path.join(' ')} has no option ${option}`;
    }
  }
  return null;
}

/** A file's source and that of the files it imports from the repository, recursively. */
function sourcesOf(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file) || !existsSync(join(root, file))) return [];
  seen.add(file);
  const source = readFileSync(join(root, file), 'utf8');
  const imported = [...source.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].map((match) =>
    join(dirname(file), match[1]!),
  );
  return [source, ...imported.flatMap((next) => sourcesOf(next, seen))];
}

/** Whether a script reads the option (`'--rounds'`, or `rounds: {` in parseArgs's options). */
function readsOption(file: string, option: string): boolean {
  const name = option.replace(/^--?/, '');
  const key = new RegExp(`(^|[\\s{,])['"]?${name}['"]?\\s*:\\s*\\{`, 'm');
  return sourcesOf(file).some(
    (source) =>
      source.includes(`'${option}'`) || source.includes(`"${option}"`) || key.test(source),
  );
}

/** What is wrong with running a file under tsx with these words, or null. */
function scriptProblem(file: string, words: string[]): string | null {
  if (file.split('/').some((part) => isPlaceholder(part.replace(/\.ts$/, '')))) return null;
  if (!existsSync(join(root, file))) return `no file ${file}`;
  for (const word of words) {
    if (!word.startsWith('-') || word === '--') continue;
    const option = word.split('=')[0]!;
    if (!readsOption(file, option)) return `${file} reads no option ${option}`;
  }
  return null;
}

const scripts: Record<string, string> = packageJson.scripts;

function npmProblem(script: string | undefined, rest: string[]): string | null {
  if (script === undefined) return 'npm run names no script';
  if (isPlaceholder(script)) return null;
  const body = scripts[script];
  if (body === undefined) return `package.json has no script ${script}`;
  const dashes = rest.indexOf('--');
  const passed = dashes === -1 ? [] : rest.slice(dashes + 1);
  const runs = /^tsx (\S+\.ts)/.exec(body);
  if (passed.length > 0 && runs !== null) return scriptProblem(runs[1]!, passed);
  return null;
}

function vitestProblem(words: string[]): string | null {
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--project') {
      const project = words[++index];
      if (project !== undefined && !isPlaceholder(project)) {
        if (!(projectNames as readonly string[]).includes(project)) return `no project ${project}`;
      }
    } else if (/^test\//.test(word) && !word.includes('$') && !existsSync(join(root, word))) {
      return `no test path ${word}`;
    }
  }
  return null;
}

function problemOf(program: string, words: string[]): string | null {
  switch (program) {
    case 'shopdesk':
      return shopdeskProblem(words);
    case 'npm run':
      return npmProblem(words[0], words.slice(1));
    case 'npm start':
      return npmProblem('start', []);
    case 'npm test':
      return npmProblem('test', []);
    case 'npx tsx':
    case 'tsx':
      return words[0] === undefined ? null : scriptProblem(words[0], words.slice(1));
    default:
      return vitestProblem(words);
  }
}

describe.each(docFiles)('the commands %s names', (file) => {
  it('exist', () => {
    const problems: string[] = [];
    for (const code of codeOf(readFileSync(join(root, file), 'utf8'))) {
      for (const { program, words } of commandsIn(code)) {
        const problem = problemOf(program, words);
        if (problem !== null) problems.push(`${program} ${words.join(' ')}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the check itself', () => {
  it('finds a command that does not exist, an option a command lacks, a missing script', () => {
    expect(shopdeskProblem(['token', 'destroy'])).toMatch(/no command destroy/);
    expect(shopdeskProblem(['token', 'create', '--colour', 'red'])).toMatch(/no option --colour/);
    expect(shopdeskProblem(['token', 'create', '--company', 'ID'])).toBeNull();
    expect(npmProblem('no-such-script', [])).toMatch(/no script/);
    expect(scriptProblem('bench/no-such-bench.ts', [])).toMatch(/no file/);
    expect(vitestProblem(['run', '--project', 'nightly'])).toMatch(/no project/);
    expect(npmProblem('bench', ['--', '--colour'])).toMatch(/reads no option --colour/);
    expect(npmProblem('bench', ['--', '--postgres'])).toBeNull();
  });

  it('reads the commands of code blocks, continued lines and code spans', () => {
    const markdown = [
      'Run `npm run bench -- --postgres` once, `BENCH_ONLY=render nice -n 5 npx tsx bench/templates.ts` alone.',
      '```sh',
      'shopdesk token create --company 1 \\',
      '  --permissions LIST && npx vitest run test/docs',
      '```',
    ].join('\n');
    expect(codeOf(markdown).flatMap(commandsIn)).toEqual([
      {
        program: 'shopdesk',
        words: ['token', 'create', '--company', '1', '--permissions', 'LIST'],
      },
      { program: 'npx vitest', words: ['run', 'test/docs'] },
      { program: 'npm run', words: ['bench', '--', '--postgres'] },
      { program: 'npx tsx', words: ['bench/templates.ts'] },
    ]);
  });
});

import { open } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { UsageError } from '../../shared/usage-error.ts';

/** The environment variable `shopdesk agent` takes its token from (docs/agent.md, "The token"). */
export const agentTokenVariable = 'SHOPDESK_AGENT_TOKEN';

/** A token file larger than this is not a token file (tokens are ~50 characters). */
const maxTokenFileBytes = 4096;

export interface AgentTokenSources {
  /** `--token TOKEN`: works, but every user of the machine sees it in the process list. */
  token?: string | undefined;
  /** `--token-file FILE`: the token alone on one line; a trailing newline is fine. */
  tokenFile?: string | undefined;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
}

export interface AgentToken {
  token: string;
  /** Said once on stderr at start, e.g. a token file that other users can read. */
  warnings: string[];
}

/**
 * The agent's token from exactly one of SHOPDESK_AGENT_TOKEN, `--token-file` and `--token`.
 * Two sources are refused rather than ranked: an operator who set both would otherwise not
 * know which token the agent used. An empty variable counts as unset. Throws UsageError
 * (one line, exit code 2, nothing written).
 */
export async function readAgentToken(sources: AgentTokenSources): Promise<AgentToken> {
  const fromEnv = sources.env[agentTokenVariable];
  const given = [
    ...(fromEnv !== undefined && fromEnv !== '' ? [agentTokenVariable] : []),
    ...(sources.tokenFile !== undefined ? ['--token-file'] : []),
    ...(sources.token !== undefined ? ['--token'] : []),
  ];
  if (given.length === 0) {
    throw new UsageError(
      `no token: set ${agentTokenVariable} or pass --token-file FILE (--token TOKEN works too, but shows in the process list)`,
    );
  }
  if (given.length > 1) {
    throw new UsageError(
      `the token is given ${given.length} times (${given.join(', ')}): give one`,
    );
  }
  if (sources.tokenFile !== undefined) return readTokenFile(sources);
  const token = ((given[0] === '--token' ? sources.token : fromEnv) ?? '').trim();
  if (token === '') throw new UsageError('--token must not be empty');
  checkTokenText(token, given[0]!);
  return { token, warnings: [] };
}

async function readTokenFile(sources: AgentTokenSources): Promise<AgentToken> {
  const file = sources.tokenFile!;
  let text: string;
  let mode: number;
  let regular: boolean;
  try {
    const handle = await open(file, 'r');
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new UsageError(`--token-file ${file} is a directory`);
      mode = info.mode;
      regular = info.isFile();
      // Read at most a little more than a token can be: a pipe (`<(pass show …)`) has no size.
      const buffer = Buffer.alloc(maxTokenFileBytes + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > maxTokenFileBytes) {
        throw new UsageError(`--token-file ${file} is larger than a token (over 4 KiB)`);
      }
      text = buffer.subarray(0, length).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (error as Error).message;
    throw new UsageError(`--token-file ${file} cannot be read: ${why}`);
  }
  // `echo sd_… > file` and editors end the line; Windows editors with CR LF.
  const token = text.replace(/(\r?\n)+$/, '');
  if (token === '') throw new UsageError(`--token-file ${file} is empty`);
  checkTokenText(token, `--token-file ${file}`);
  const warnings: string[] = [];
  if (
    regular &&
    sources.platform !== 'win32' &&
    (mode & 0o044) !== 0 &&
    !isCredential(file, sources.env)
  ) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    warnings.push(
      `--token-file ${file} can be read by other users (mode ${octal}); make it private: chmod 600 ${file}`,
    );
  }
  return { token, warnings };
}

/** A header value cannot carry spaces or control characters; a file with two lines is a mistake. */
function checkTokenText(token: string, source: string): void {
  if (/[\s\p{Cc}]/u.test(token)) {
    throw new UsageError(`${source} must hold the token alone: one line, no spaces`);
  }
}

/**
 * systemd's LoadCredential= files (under $CREDENTIALS_DIRECTORY) are readable by the service
 * alone, through an ACL whose mask shows in the group bits (mode 0440): nothing to warn about.
 */
function isCredential(file: string, env: Record<string, string | undefined>): boolean {
  const dir = env['CREDENTIALS_DIRECTORY'];
  return dir !== undefined && dir !== '' && resolve(file).startsWith(resolve(dir) + sep);
}

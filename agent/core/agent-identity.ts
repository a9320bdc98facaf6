import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file.ts';

/**
 * The agent's identity: a UUID generated once and kept in `<state dir>/agent.json`, so that
 * the server sees the same agent across restarts (docs/printing.md, "Agents and X-Agent-Id").
 */
const agentFile = z.object({ uuid: z.uuid(), created_at: z.string() });
export type AgentIdentity = z.infer<typeof agentFile>;

export async function loadOrCreateIdentity(stateDir: string, now: Date): Promise<AgentIdentity> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, 'agent.json');
  let text: string | null = null;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== null) {
    // A damaged file is an error, not a reason to become a new agent: the old one may hold jobs.
    return agentFile.parse(JSON.parse(text));
  }
  const identity: AgentIdentity = { uuid: randomUUID(), created_at: now.toISOString() };
  await writeFileAtomic(path, JSON.stringify(identity, null, 2));
  return identity;
}

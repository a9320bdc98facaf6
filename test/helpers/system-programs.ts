import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { requireService } from './services.ts';

const execFileAsync = promisify(execFile);

/**
 * Programs from Debian that a test runs and that are not services: systemd's
 * systemd-analyze (the agent's unit file is verified; systemd need not run) and curl (the
 * README's walk). Without one, the test is skipped with a line saying so (or fails with it
 * in CI: test/helpers/services.ts).
 */
export async function requireProgram(name: 'systemd-analyze' | 'curl'): Promise<void> {
  await requireService(name);
}

/** `systemd-analyze verify ARGS… FILE`: what it printed (nothing, for a good unit). */
export async function systemdAnalyzeVerify(
  file: string,
  args: string[] = [],
): Promise<{ stdout: string; stderr: string }> {
  await requireProgram('systemd-analyze');
  return execFileAsync('systemd-analyze', ['verify', ...args, file]);
}

import { compareVersions, releasePlatformOf } from '../../shared/releases.ts';
import { httpCall } from './http-request.ts';
import { agentVersion } from './version.ts';

/**
 * The headless agent does not update itself (a package manager or IT's tooling does); it
 * says when the server offers a newer build, once per version: at start and every six hours
 * it reads the update feed the tray's updater reads (docs/it-guide.md, "Roll out a version").
 */
export const updateCheckIntervalMs = 6 * 60 * 60 * 1000;

/** The feed file electron-updater reads for this platform on the stable channel. */
export function feedFileOf(platform: NodeJS.Platform): string | null {
  const target = releasePlatformOf(platform);
  if (target === null) return null;
  return target === 'win' ? 'latest.yml' : `latest-${target}.yml`;
}

/** `version: 1.2.3` of a latest*.yml (the top-level key; files: entries are indented). */
export const feedVersionOf = (yaml: string): string | null =>
  /^version:\s*['"]?([^'"\s]+)['"]?\s*$/m.exec(yaml)?.[1] ?? null;

export function watchForUpdates(options: {
  serverUrl: string;
  token: string;
  agentId: () => string | null;
  platform: NodeJS.Platform;
  say: (level: string, message: string) => void;
  channel?: string;
  intervalMs?: number;
}): { stop(): void; check(): Promise<string | null> } {
  const file = feedFileOf(options.platform);
  const said = new Set<string>();
  const check = async (): Promise<string | null> => {
    const agentId = options.agentId();
    if (file === null || agentId === null) return null;
    const url = `${options.serverUrl.replace(/\/+$/, '')}/api/v1/printing/updates/${options.channel ?? 'stable'}/${file}`;
    try {
      const answer = await httpCall(url, {
        headers: { authorization: `Bearer ${options.token}`, 'x-agent-id': agentId },
        timeoutMs: 30_000,
      });
      const text = answer.body.toString('utf8');
      if (answer.status !== 200) return null;
      const version = feedVersionOf(text);
      if (version === null || compareVersions(version, agentVersion) <= 0) return null;
      if (!said.has(version)) {
        said.add(version);
        options.say(
          'info',
          `a newer agent version is available: ${version} (this is ${agentVersion}); install it to update`,
        );
      }
      return version;
    } catch {
      return null; // the server being away is said by the runtime already
    }
  };
  void check();
  const timer = setInterval(() => void check(), options.intervalMs ?? updateCheckIntervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), check };
}

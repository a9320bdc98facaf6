import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { listPackage } from '@electron/asar';
import { DebugLogger } from 'builder-util/out/DebugLogger.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleAgentApp } from '../../agent/electron/bundle.ts';

const projectDir = join(import.meta.dirname, '..', '..');

// electron-builder's config reader loads jiti (for .ts configs), which makes a cache folder in
// the system's temporary folder as soon as it is loaded; ours is YAML and needs none. So the
// switch comes first, and the modules are loaded after it.
process.env.JITI_FS_CACHE = 'false';
const { validateConfiguration } = await import('app-builder-lib/out/util/config/config.js');
const { getConfig } = await import('app-builder-lib/out/util/config/load.js');

async function readBuilderConfig(): Promise<Record<string, unknown>> {
  // electron-builder's own reader, so YAML and macros are read exactly as the build reads them.
  const read = await getConfig<Record<string, unknown>>(
    { packageKey: 'build', configFilename: 'electron-builder', projectDir, packageMetadata: null },
    join(projectDir, 'electron-builder.yml'),
  );
  if (!read) throw new Error('electron-builder.yml not found');
  return read.result;
}

describe('electron-builder configuration', () => {
  it("passes electron-builder's own validation against scheme.json", async () => {
    const config = await readBuilderConfig();
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('is a check that can fail: a misspelt option is refused', async () => {
    const config = { ...(await readBuilderConfig()), appid: 'com.shopdesk.agent' };
    await expect(
      validateConfiguration(config as Record<string, unknown>, new DebugLogger(false)),
    ).rejects.toThrow(/appid/);
  });

  it('names the product, the targets per OS and the deb maintainer', async () => {
    const config = await readBuilderConfig();
    expect(config).toMatchObject({
      appId: 'com.shopdesk.agent',
      productName: 'ShopDesk Print Agent',
      asarUnpack: ['node_modules/pdf-to-printer/dist/*.exe'],
      win: { target: [{ target: 'nsis' }] },
      mac: { target: [{ target: 'dmg' }, { target: 'zip' }] },
      linux: {
        target: [{ target: 'AppImage' }, { target: 'deb' }],
        maintainer: expect.stringContaining('@'),
      },
    });
    for (const icon of ['icon.ico', 'icon.icns', 'icon.png']) {
      expect(existsSync(join(projectDir, 'agent/electron/build', icon))).toBe(true);
    }
  });
});

describe('esbuild bundle of main, preload and renderer', () => {
  let outDir: string;
  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'shopdesk-bundle-'));
    await bundleAgentApp(outDir);
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('writes every file the app loads at run time', () => {
    for (const file of [
      'main.js',
      'preload.cjs',
      'renderer/index.html',
      'renderer/renderer.js',
      'renderer/styles.css',
      'icons/icon.png',
      'icons/tray-connected.png',
      'icons/tray-failed@2x.png',
    ]) {
      expect(existsSync(join(outDir, file)), file).toBe(true);
    }
  });

  it('keeps Node out of the renderer and the preload', () => {
    const renderer = readFileSync(join(outDir, 'renderer/renderer.js'), 'utf8');
    const preload = readFileSync(join(outDir, 'preload.cjs'), 'utf8');
    for (const code of [renderer, preload]) {
      expect(code).not.toMatch(/require\(["'](node:)?fs["']\)/);
      expect(code).not.toMatch(/require\(["'](node:)?child_process["']\)/);
    }
    expect(renderer).not.toMatch(/\brequire\(/);
    // A sandboxed preload may require electron and nothing else.
    expect([...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1])).toEqual([
      'electron',
    ]);
  });

  it('keeps zod out of the preload and the renderer (only the main process validates)', () => {
    expect(readFileSync(join(outDir, 'preload.cjs'), 'utf8').length).toBeLessThan(20_000);
    expect(readFileSync(join(outDir, 'renderer/renderer.js'), 'utf8')).not.toContain('ZodError');
  });

  it('loads the bundled main.js under Node with a stand-in electron module', async () => {
    // Evaluates every module of the bundle (electron-store, conf, zod, the core) as Electron
    // would, up to the single-instance lock, which the stand-in refuses so the app quits.
    const stub = join(outDir, 'node_modules', 'electron');
    mkdirSync(stub, { recursive: true });
    // Electron gives ES modules named exports of 'electron'; so does this stand-in.
    writeFileSync(
      join(stub, 'package.json'),
      '{"name":"electron","type":"module","main":"index.js"}',
    );
    const names = [
      'BrowserWindow',
      'Menu',
      'Notification',
      'Tray',
      'ipcMain',
      'nativeImage',
      'net',
      'protocol',
    ];
    writeFileSync(
      join(stub, 'index.js'),
      `export const app = {
  isPackaged: false,
  setName() {},
  setAppUserModelId() {},
  requestSingleInstanceLock: () => false,
  quit: () => console.log('quit: second instance'),
  on() {},
  whenReady: () => new Promise(() => {}),
};
${names.map((name) => `export const ${name} = {};`).join('\n')}
export const session = {};
export const shell = {};
export const safeStorage = {};
export default { app, ${names.join(', ')}, session, shell, safeStorage };`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [join(outDir, 'main.js')], {
      cwd: outDir,
      timeout: 20_000,
    });
    expect(stdout).toContain('quit: second instance');
  });

  it('bundles the main process with electron left to the runtime', () => {
    const main = readFileSync(join(outDir, 'main.js'), 'utf8');
    expect(main).toMatch(/from ["']electron["']/);
    expect(main).not.toMatch(/from ["']electron-store["']/);
    expect(main).toContain('ZodError');
  });

  it("inlines the package's version, which the agent registers with", () => {
    // main.js does not sit where package.json is relative to agent/core/version.ts: the
    // version must be in the bundle, not read from disk at run time.
    const main = readFileSync(join(outDir, 'main.js'), 'utf8');
    const { version } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8'));
    expect(main).toContain(`version: ${JSON.stringify(version)}`);
    expect(main).not.toMatch(/require\(["'][^"']*package\.json["']\)/);
  });
});

describe('packing with electron-builder (stand-in Electron binary)', () => {
  let work: string;
  let appOut: string;

  beforeAll(async () => {
    // The real Electron binary cannot be downloaded here; electron-builder packs around any
    // directory given as electronDist, so a stand-in shows what goes into app.asar.
    work = mkdtempSync(join(tmpdir(), 'shopdesk-pack-'));
    const electronDist = join(work, 'electron');
    mkdirSync(join(electronDist, 'resources'), { recursive: true });
    writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\n');
    chmodSync(join(electronDist, 'electron'), 0o755);
    writeFileSync(join(electronDist, 'version'), '45.4.1');
    writeFileSync(join(electronDist, 'LICENSE'), 'stand-in');
    // A copy of the project's packaging inputs, so the test neither needs nor touches
    // agent/electron/dist in the working tree.
    const project = join(work, 'project');
    mkdirSync(join(project, 'agent', 'electron'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json', 'electron-builder.yml']) {
      copyFileSync(join(projectDir, file), join(project, file));
    }
    symlinkSync(realpathSync(join(projectDir, 'node_modules')), join(project, 'node_modules'));
    symlinkSync(join(projectDir, 'agent/electron/build'), join(project, 'agent/electron/build'));
    await bundleAgentApp(join(project, 'agent/electron/dist'));
    await promisify(execFile)(
      process.execPath,
      [
        join(projectDir, 'node_modules/electron-builder/cli.js'),
        '--config',
        'electron-builder.yml',
        '--linux',
        'dir',
        '--publish',
        'never',
        `-c.electronDist=${electronDist}`,
        `-c.directories.output=${join(work, 'out')}`,
      ],
      // No caches in the system's temporary folder (jiti's, Node's compile cache). Not by
      // moving TMPDIR: electron-builder trusts files under the temporary folder, and the
      // repository's node_modules may well live under /tmp (a fresh clone in CI).
      {
        cwd: project,
        timeout: 120_000,
        env: { ...process.env, JITI_FS_CACHE: 'false', NODE_DISABLE_COMPILE_CACHE: '1' },
      },
    );
    appOut = join(work, 'out', 'linux-unpacked');
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('puts only the bundle and pdf-to-printer in app.asar', () => {
    const files = listPackage(join(appOut, 'resources', 'app.asar'), { isPack: false });
    expect(files).toContain('/agent/electron/dist/main.js');
    expect(files).toContain('/agent/electron/dist/preload.cjs');
    expect(files).toContain('/agent/electron/dist/renderer/index.html');
    expect(files).toContain('/node_modules/pdf-to-printer/dist/bundle.js');
    const modules = new Set(
      files.filter((file) => file.startsWith('/node_modules/')).map((file) => file.split('/')[2]),
    );
    expect([...modules]).toEqual(['pdf-to-printer']);
    expect(files.some((file) => file.endsWith('.map') || file.endsWith('.ts'))).toBe(false);
    expect(files.some((file) => file.startsWith('/server') || file.startsWith('/test'))).toBe(
      false,
    );
  });

  it('names the Linux executable and writes the (disabled) update feed settings', () => {
    expect(existsSync(join(appOut, 'shopdesk-print-agent'))).toBe(true);
    const update = readFileSync(join(appOut, 'resources', 'app-update.yml'), 'utf8');
    expect(update).toContain('provider: generic');
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  machineConfigPath,
  parseLaunchArguments,
  readProvisioningFile,
} from '../../agent/electron/main/launch-options.ts';
import {
  applyStartAtLogin,
  autostartFileName,
  linuxAutostartEntry,
} from '../../agent/electron/main/start-at-login.ts';

describe('parseLaunchArguments', () => {
  it('reads --server, --token and repeated --route NAME=PRINTER among Chromium flags', () => {
    const options = parseLaunchArguments(
      [
        '--no-sandbox',
        '--server',
        'https://shop.example.com',
        '--token=sd_agent_abc',
        '--route',
        'receipts=EPSON TM-T20',
        '--route',
        'labels=folder:/var/spool/labels',
        '--enable-logging',
      ],
      '/etc/shopdesk/agent.json',
    );
    expect(options).toEqual({
      hidden: false,
      flags: {
        serverUrl: 'https://shop.example.com',
        token: 'sd_agent_abc',
        routes: { receipts: 'EPSON TM-T20', labels: 'folder:/var/spool/labels' },
      },
      configFile: '/etc/shopdesk/agent.json',
      problems: [],
    });
  });

  it('takes --config over the machine-wide path, and --hidden from the login item', () => {
    const options = parseLaunchArguments(
      ['--hidden', '--config', '/srv/agent.json'],
      '/etc/x.json',
    );
    expect(options).toMatchObject({ hidden: true, configFile: '/srv/agent.json', flags: {} });
  });

  it.each([
    [['--server', 'ftp://shop.example.com'], /--server/],
    [['--route', 'receipts'], /NAME=PRINTER/],
    [['--route', 'Front Desk=EPSON'], /--route/],
    [['--token', 'two words'], /--token/],
  ])('reports %j as a problem and applies nothing from it', (args, problem) => {
    const options = parseLaunchArguments(args, '/etc/x.json');
    expect(options.flags).toEqual({});
    expect(options.problems).toHaveLength(1);
    expect(options.problems[0]).toMatch(problem);
  });

  it('never repeats a bad token in the problem it reports', () => {
    const options = parseLaunchArguments(['--token', 'secret value'], '/etc/x.json');
    expect(options.problems.join()).not.toContain('secret');
  });
});

describe('machineConfigPath', () => {
  it.each([
    ['win32', { ProgramData: 'D:\\ProgramData' }, 'D:\\ProgramData/ShopDesk/agent.json'],
    ['darwin', {}, '/Library/Application Support/ShopDesk/agent.json'],
    ['linux', {}, '/etc/shopdesk/agent.json'],
  ] as const)('on %s', (platform, env, expected) => {
    // path.join uses this OS's separator; the Windows case checks the parts.
    expect(machineConfigPath(platform, env).replaceAll('\\ShopDesk', '/ShopDesk')).toBe(
      expected.replaceAll('\\ShopDesk', '/ShopDesk'),
    );
  });
});

describe('readProvisioningFile', () => {
  const file = '/etc/shopdesk/agent.json';

  it('reads server, token and routes', () => {
    const json = JSON.stringify({
      server: 'https://shop.example.com',
      token: 'sd_agent_abc',
      routes: { receipts: 'EPSON' },
      startAtLogin: false,
    });
    expect(readProvisioningFile(file, () => json)).toEqual({
      provisioning: {
        serverUrl: 'https://shop.example.com',
        token: 'sd_agent_abc',
        routes: { receipts: 'EPSON' },
        startAtLogin: false,
      },
      problem: null,
    });
  });

  it('treats a missing file as none', () => {
    const missing = () => {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    };
    expect(readProvisioningFile(file, missing)).toEqual({ provisioning: null, problem: null });
  });

  it.each([
    ['not JSON', '{server:', /not valid JSON/],
    ['an unknown field', '{"server":"https://a.example","tokn":"x"}', /agent\.json/],
    ['a bad route', '{"routes":{"Bad Name":"P"}}', /routes/],
  ])('reports %s and applies nothing', (_name, text, problem) => {
    const result = readProvisioningFile(file, () => text);
    expect(result.provisioning).toBeNull();
    expect(result.problem).toMatch(problem);
  });
});

describe('start at login', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('writes a Linux autostart entry that starts hidden, quoting the path', () => {
    expect(linuxAutostartEntry('/opt/ShopDesk Print Agent/shopdesk-print-agent')).toBe(
      [
        '[Desktop Entry]',
        'Type=Application',
        'Version=1.0',
        'Name=ShopDesk Print Agent',
        'Comment=Prints ShopDesk jobs on this PC',
        'Exec="/opt/ShopDesk Print Agent/shopdesk-print-agent" --hidden',
        'Terminal=false',
        'X-GNOME-Autostart-enabled=true',
        '',
      ].join('\n'),
    );
  });

  it('escapes characters the Exec key gives meaning to', () => {
    expect(linuxAutostartEntry('/home/a"b/$x.AppImage')).toContain(
      'Exec="/home/a\\"b/\\$x.AppImage" --hidden',
    );
  });

  it('adds and removes ~/.config/autostart/… on Linux', () => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-autostart-'));
    const app = { setLoginItemSettings: vi.fn() };
    const target = {
      platform: 'linux' as const,
      app,
      executable: '/opt/agent/agent',
      configHome: dir,
    };
    applyStartAtLogin(true, target);
    const file = join(dir, 'autostart', autostartFileName);
    expect(readFileSync(file, 'utf8')).toContain('Exec=/opt/agent/agent --hidden');
    applyStartAtLogin(false, target);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    expect(app.setLoginItemSettings).not.toHaveBeenCalled();
  });

  it.each(['win32', 'darwin'] as const)('uses the login item settings on %s', (platform) => {
    const app = { setLoginItemSettings: vi.fn() };
    applyStartAtLogin(true, { platform, app, executable: 'x', configHome: '/nowhere' });
    expect(app.setLoginItemSettings).toHaveBeenCalledWith({
      openAtLogin: true,
      args: ['--hidden'],
    });
  });
});

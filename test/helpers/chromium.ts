import { type Browser, chromium, type LaunchOptions } from 'playwright-core';
import { requireService } from './services.ts';

/**
 * Debian's Chromium (never a browser Playwright downloads), headless, without the services
 * that would reach the network. Without it installed, the test is skipped with a line
 * saying so (or fails with it in CI: test/helpers/services.ts). The caller closes it.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  await requireService('chromium');
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    ...options,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...(options.args ?? []),
    ],
  });
}

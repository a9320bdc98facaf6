import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from '../helpers/chromium.ts';
import { type ConsoleUser, consoleUser, ensureConsoleBuilt } from '../helpers/console.ts';
import { type Instances, startInstances, type TestDialect } from '../helpers/instances.ts';

/** Two instances with a company named for the test file, as its console tests share them. */
export interface ConsoleCompany {
  instances: Instances;
  companyId: number;
  /** A new person of the company with `role`, made through instance one. */
  user(role: Parameters<typeof consoleUser>[2]): Promise<ConsoleUser>;
}

/**
 * Builds the console if need be and starts two instances of `dialect` with the company `name`
 * before the tests of the enclosing `describe`; closes them after. The fields are set once
 * `beforeAll` has run.
 */
export function consoleCompany(dialect: TestDialect, name: string): ConsoleCompany {
  const shop: ConsoleCompany = {
    instances: undefined as unknown as Instances,
    companyId: 0,
    user: (role) => consoleUser(shop.instances.one, shop.companyId, role),
  };
  beforeAll(async () => {
    await ensureConsoleBuilt();
    shop.instances = await startInstances(dialect);
    shop.companyId = await shop.instances.one.createCompany(name);
  }, 60_000);
  afterAll(() => shop.instances?.close());
  return shop;
}

/**
 * One Chromium for the test file, with the console built first (a launch costs about a
 * second of CPU). Each group of tests opens its own contexts on it, so nothing of one group
 * (cookies, storage) is seen by another. `browser` is there from the file's `beforeAll` on.
 */
export function chromiumForFile(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    await ensureConsoleBuilt();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser(): Browser {
      if (browser === undefined)
        throw new Error('Chromium is not started: use it in a test or hook.');
      return browser;
    },
  };
}

/** Signs in on the console's own form, as a person does; waits for the Overview. */
export async function signInOnPage(
  page: Page,
  url: string,
  user: { email: string; password: string },
): Promise<void> {
  await page.goto(`${url}/console/`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

import { defineConfig } from 'vitest/config';
import { projectNames, testProjects } from './test/projects.ts';

const files = testProjects();

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for what a page or a process shows: Vitest's default of 1 s was too
    // short for a loaded 2-core machine (a page seen still 'Waiting to print' a second after its
    // Cancel, once in a full run). A page that never shows it fails 10 s later instead of 1.
    expect: { poll: { timeout: 10_000 } },
    // Two cores here, but a test often waits (on a process, a browser, a timeout it proves):
    // with two workers the CPUs were idle half of the run (184 s); with four, 5 % (~150 s).
    maxWorkers: 4,
    // Template render threads at the server's own priority, in `shopdesk serve` processes the
    // tests start too: at nice 19 (the default) they waited seconds for a core beside the
    // suite's other processes (docs/testing.md). The in-process servers: test/helpers/server.ts.
    env: { SHOPDESK_RENDER_NICE: '0' },
    // A test whose service is missing is skipped with one line saying so, or fails with it
    // in CI (test/helpers/services.ts); the reporter lists those lines at the end.
    runner: './test/helpers/service-runner.ts',
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/missing-services-reporter.ts'],
    // One project per kind of need (docs/testing.md): `npx vitest run --project unit`.
    // Every project shares its worker's modules from one file to the next: loading the server
    // again for each file cost about a second of CPU a file (the system project alone: 64 → 50
    // CPU-s), and a fresh process for each unit file 7 CPU-s of the unit project's 23. No test
    // leaves a global behind; the three that mock `electron` drop the modules they loaded
    // under their mocks (ownModulesUnderMocks, test/electron/fixtures.ts).
    isolate: false,
    projects: projectNames.map((name) => ({
      extends: true,
      test: { name, include: files[name] },
    })),
  },
});

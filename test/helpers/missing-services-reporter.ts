import type { Reporter, TestModule } from 'vitest/node';
import { services } from './services.ts';

const lines = new Set<string>(Object.values(services).map((service) => service.missing));

/**
 * After the run, one line per missing service with how many tests it skipped: the reasons
 * the runner gave them (test/helpers/service-runner.ts), which the default reporter does not
 * print.
 */
export default class MissingServicesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, number>();
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const { state, note } = test.result() as { state: string; note?: string };
        if (state === 'skipped' && note !== undefined && lines.has(note)) {
          skipped.set(note, (skipped.get(note) ?? 0) + 1);
        }
      }
    }
    if (skipped.size === 0) return;
    const out = [
      '',
      'Skipped because a service is missing (CI=true or SHOPDESK_REQUIRE_SERVICES=1 fails them instead):',
      ...[...skipped].map(([line, count]) => `  ${count} test${count === 1 ? '' : 's'}: ${line}`),
      '',
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  }
}

import autocannon, { type Options } from 'autocannon';
import { cpuSecondsOf } from './spawn.ts';

export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Mean latency, the fairest per-request figure for heavy requests (bulk updates). */
  meanMs: number;
  total: number;
  /** Server CPU time per request, in microseconds (null where /proc is missing). */
  cpuUsPerRequest: number | null;
  /** Answers that were not 2xx, plus socket errors and timeouts: any is a failed run. */
  failures: number;
}

export interface Scenario {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or one made per request (unique codes). */
  body?: string | (() => string);
  /** Headers made per request, on top of `headers` (a fresh Idempotency-Key). */
  headersPerRequest?: () => Record<string, string>;
}

/** Warms the server up, then measures it: JIT, statement caches and sockets are hot. */
export async function measure(
  origin: string,
  pid: number | undefined,
  scenario: Scenario,
  settings: LoadSettings,
): Promise<Measurement> {
  const options = (seconds: number): Options => {
    const { body, headersPerRequest } = scenario;
    const perRequest = typeof body === 'function' || headersPerRequest !== undefined;
    return {
      url: origin,
      connections: settings.connections,
      duration: seconds,
      requests: [
        {
          method: scenario.method,
          path: scenario.path,
          headers: scenario.headers,
          ...(body !== undefined && typeof body !== 'function' ? { body } : {}),
          ...(perRequest && {
            setupRequest: (request) => ({
              ...request,
              ...(typeof body === 'function' ? { body: body() } : {}),
              ...(headersPerRequest
                ? {
                    headers: {
                      ...(request.headers as Record<string, string>),
                      ...headersPerRequest(),
                    },
                  }
                : {}),
            }),
          }),
        },
      ],
    };
  };
  if (settings.warmupSeconds > 0) await autocannon(options(settings.warmupSeconds));
  const cpuBefore = cpuSecondsOf(pid);
  const result = await autocannon(options(settings.seconds));
  const cpuAfter = cpuSecondsOf(pid);
  const cpuUsPerRequest =
    cpuBefore === null || cpuAfter === null || result.requests.total === 0
      ? null
      : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    total: result.requests.total,
    cpuUsPerRequest,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** The mean of several rounds of one scenario on one server. */
export function averageOf(runs: Measurement[]): Measurement {
  const mean = (pick: (m: Measurement) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return {
    requestsPerSecond: mean((m) => m.requestsPerSecond),
    p50Ms: mean((m) => m.p50Ms),
    p99Ms: mean((m) => m.p99Ms),
    meanMs: mean((m) => m.meanMs),
    total: runs.reduce((sum, run) => sum + run.total, 0),
    cpuUsPerRequest: runs.every((run) => run.cpuUsPerRequest !== null)
      ? mean((m) => m.cpuUsPerRequest!)
      : null,
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

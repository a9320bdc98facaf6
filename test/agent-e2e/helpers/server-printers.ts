import type { RealAgentTestServer } from '../../helpers/real-agent-server.ts';
import { waitFor } from '../../helpers/wait.ts';

/** A printer as the agent record on the server lists it (`GET /printing/agents`). */
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by path.
type ListedPrinter = { name: string; capabilities?: any };

/**
 * The first agent's printer `queue` once the server lists it with capabilities that satisfy
 * `ready` (the agent reads them from CUPS after it registers).
 */
export function printerOnServer(
  server: RealAgentTestServer,
  queue: string,
  ready: (capabilities: ListedPrinter['capabilities']) => unknown,
) {
  return waitFor(
    `${queue} with its capabilities on the server`,
    async () => {
      const answer = await server.request('GET', '/printing/agents');
      const printers: ListedPrinter[] = answer.body.data[0]?.printers ?? [];
      return printers.find((printer) => printer.name === queue && ready(printer.capabilities));
    },
    20_000,
  );
}

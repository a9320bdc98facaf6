import { printerInfoSchema } from '../../../shared/printing.ts';
import { printerWaitReason, type WaitReason } from '../../../shared/wait-reasons.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { OutboxDeps } from '../../webhooks/index.ts';
import { presentAt } from './presence.ts';

/** What the sweep announced: `agent uuid/printer` of each event sent, in order. */
export interface PrinterAttentionSwept {
  attention: string[];
  recovered: string[];
}

/**
 * `printer.attention` and `printer.recovered`, once per printer per episode
 * (docs/webhooks.md, "Printer attention"). Each sweep (every 5 s, every instance) reads the
 * online agents' printers as last reported: a printer that cannot print
 * (`printerWaitReason`) starts an episode (a `printer_attention` row, inserted once whatever
 * the number of instances: its key is the agent and the printer); one that has lasted
 * `thresholdSeconds` is announced by the one UPDATE that sets `notified_at` where it was null
 * (a second instance's UPDATE waits for the first's row lock, then finds it set); a printer
 * that prints again, or is gone, ends it: the DELETE that removes the row answers whether it
 * had been announced, and only then `printer.recovered` is sent. A cover opened for 10 s to
 * change paper starts and ends an episode and sends nothing. An offline agent's episodes
 * wait for its return (`agent.offline` says the rest). One transaction per sweep.
 */
export async function sweepPrinterAttention(
  { storage, outbox }: OutboxDeps,
  db: Db,
  now: Date,
  thresholdSeconds: number,
): Promise<PrinterAttentionSwept> {
  const swept: PrinterAttentionSwept = { attention: [], recovered: [] };
  if (thresholdSeconds <= 0) return swept;
  const stamp = isoNow(now);
  const due = isoNow(new Date(now.getTime() - thresholdSeconds * 1000));
  return storage.transaction(db, async (trx) => {
    const agents = await trx
      .selectFrom('print_agents')
      .select(['id', 'uuid', 'name', 'hostname', 'company_id', 'printers'])
      .where('online_since', 'is not', null)
      .where('present_until', '>=', presentAt(now))
      .execute();
    const open = await trx
      .selectFrom('printer_attention')
      .selectAll()
      .where('agent_id', 'in', agents.length > 0 ? agents.map((agent) => agent.id) : [-1])
      .execute();
    for (const agent of agents) {
      const parsed = printerInfoSchema.array().safeParse(JSON.parse(agent.printers));
      const printers = parsed.success ? parsed.data : [];
      const reasons = new Map<string, WaitReason>();
      for (const printer of printers) {
        const reason = printerWaitReason(printer);
        if (reason !== null) reasons.set(printer.name, reason);
      }
      const about = (
        printer: string,
        reason: { code: string; message: string },
        since: string,
      ) => ({
        agent_id: agent.uuid,
        agent_name: agent.name || agent.hostname,
        printer,
        code: reason.code,
        message: reason.message,
        since,
      });
      for (const [printer, reason] of reasons) {
        if (open.some((row) => row.agent_id === agent.id && row.printer === printer)) continue;
        await trx
          .insertInto('printer_attention')
          .values({
            company_id: agent.company_id,
            agent_id: agent.id,
            printer,
            code: reason.code,
            message: reason.message,
            since: stamp,
            notified_at: null,
          })
          .onConflict((conflict) => conflict.columns(['agent_id', 'printer']).doNothing())
          .execute();
      }
      for (const row of open.filter((candidate) => candidate.agent_id === agent.id)) {
        if (reasons.has(row.printer)) continue;
        const ended = await trx
          .deleteFrom('printer_attention')
          .where('agent_id', '=', row.agent_id)
          .where('printer', '=', row.printer)
          .returning(['notified_at', 'code', 'message', 'since'])
          .execute();
        const episode = ended[0];
        if (episode?.notified_at == null) continue;
        swept.recovered.push(`${agent.uuid}/${row.printer}`);
        await outbox.record(trx, {
          companyId: agent.company_id,
          type: 'printer.recovered',
          at: stamp,
          data: () => ({ ...about(row.printer, episode, episode.since), recovered_at: stamp }),
        });
      }
      const announced = await trx
        .updateTable('printer_attention')
        .set({ notified_at: stamp })
        .where('agent_id', '=', agent.id)
        .where('notified_at', 'is', null)
        .where('since', '<=', due)
        .returning(['printer', 'code', 'message', 'since'])
        .execute();
      for (const row of announced) {
        // Still the same episode: a printer that recovered in this sweep was deleted above.
        swept.attention.push(`${agent.uuid}/${row.printer}`);
        await outbox.record(trx, {
          companyId: agent.company_id,
          type: 'printer.attention',
          at: stamp,
          data: () => about(row.printer, reasons.get(row.printer) ?? row, row.since),
        });
      }
    }
    return swept;
  });
}

import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { PreviewFormat } from '../../shared/templates.ts';
import { isDomainError } from '../domain-errors.ts';
import { dataPathOf } from './render/barcodes.ts';
import {
  defaultProfile,
  loadDrawing,
  renderDocument,
  type TemplateSource,
} from './render-document.ts';

/**
 * A render thread of the pool (`render-pool.ts`, piscina's worker): each task is one
 * `renderDocument`, Liquid and drawing both. A refusal (a 422 of the render) comes back as
 * data, since an error loses its class on the way between threads.
 */

export interface RenderTask {
  template: TemplateSource;
  /** The data, or its JSON text (a stored job's: parsed here, not on the event loop). */
  data: object | Uint8Array;
  profile: PrinterProfile;
  format: PreviewFormat;
  /**
   * Where the thread writes when the render started (`performance.timeOrigin + now()`, ms),
   * so that its time budget counts the render alone: shared memory, which costs the hop
   * nothing (a message port a render cost ~0.3 ms of CPU).
   */
  started: SharedArrayBuffer;
}

export type RenderOutcome =
  | { ok: true; contentType: string; bytes: Uint8Array }
  | { ok: false; kind: string; errors?: Record<string, string[]>; message: string };

/**
 * What a fresh thread does before its first render's budget starts: loads the drawing
 * (~0.3 s of CPU) and renders a line, which makes the Liquid engine and loads the code
 * pages (~50 ms more). A budget then counts what the render itself costs.
 */
let warm: Promise<unknown> | undefined;
const warmUp = () =>
  (warm ??= loadDrawing().then(() =>
    renderDocument({ kind: 'receipt', source: 'ShopDesk' }, {}, defaultProfile, 'raw'),
  ));

export default async function render(task: RenderTask): Promise<RenderOutcome> {
  await warmUp();
  new Float64Array(task.started)[0] = performance.timeOrigin + performance.now();
  try {
    const data =
      task.data instanceof Uint8Array
        ? (JSON.parse(Buffer.from(task.data).toString('utf8')) as object)
        : task.data;
    // A barcode's refusal names the data's path (`data.order.reference`), as at a job's
    // creation, for previews and claims alike. The render's own check of the codes does it,
    // before any bytes are made: a check of its own before the render ran Liquid and read the
    // codes once more, ~0.34 ms of a 30-line receipt's ~0.9 on the thread (bench/templates.ts).
    const { contentType, bytes } = await renderDocument(
      task.template,
      data,
      task.profile,
      task.format,
      (symbol) => dataPathOf(data, symbol),
    );
    return { ok: true, contentType, bytes };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return {
      ok: false,
      kind: error.kind,
      message: error.message,
      ...('errors' in error && { errors: error.errors }),
    };
  }
}

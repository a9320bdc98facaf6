import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { invalidField } from '../../domain-errors.ts';
import { bitmapToPng } from './png.ts';

/**
 * A label's ZPL drawn as a PNG, offline, by zpl-renderer-js (Zebrash, a Go ZPL renderer,
 * compiled to WebAssembly; docs/templates.md). The package is ~9 MB of JavaScript with the
 * WebAssembly inlined, so it is loaded the first time a label is drawn, never at start-up,
 * and on a thread of its own:
 * - a render runs synchronously inside the Go runtime: a label that takes long would stop
 *   every request meanwhile; on its thread it is stopped after `drawLimitMs` (the thread is
 *   ended and the next label starts a new one);
 * - the Go runtime sets globals of its own (`fs`, `path`, `Go`), and prints a panic on the
 *   console before it exits: in the thread, none of that reaches the server.
 */

/** How long one label may take to draw (a 50 × 30 mm shelf label: a few ms). */
export const drawLimitMs = 2000;
/** How long loading the package may take (compiling its WebAssembly: about a second). */
const loadLimitMs = 30_000;

/** The label's size in dots, and the printer's dots a mm: 8 (203 dpi) or 12 (300 dpi). */
interface LabelSize {
  widthDots: number;
  heightDots: number;
  dpmm: 8 | 12;
}

/** A label's length when its ZPL sets none (`^LL`): 30 mm, a common shelf label. */
const defaultLabelMm = 30;
/** The longest label a preview draws: 300 mm, as long as the widest label a profile takes. */
const maxLabelMm = 300;

/** Millimetres as printer dots at `dpi`. */
export const dotsOf = (mm: number, dpi: number) => Math.round((mm * dpi) / 25.4);

/**
 * A label's size for a preview: `widthDots` across (the profile's label), as long as the
 * ZPL's first `^LL` (in dots) says, else `defaultLabelMm`. Longer than `maxLabelMm` is a 422
 * on `source`.
 */
export function labelSize(zpl: string, widthDots: number, dpi: number): LabelSize {
  const length = Number(/\^LL(\d+)/.exec(zpl)?.[1] ?? 0);
  const heightDots = length > 0 ? length : dotsOf(defaultLabelMm, dpi);
  const maxDots = dotsOf(maxLabelMm, dpi);
  if (heightDots > maxDots) {
    throw invalidField(
      'source',
      `A label preview is at most ${maxLabelMm} mm long (^LL${maxDots} at ${dpi} dpi).`,
    );
  }
  return { widthDots, heightDots, dpmm: dpi === 300 ? 12 : 8 };
}

/**
 * The thread (CommonJS, evaluated): loads the package, then draws each label it is sent.
 * The Go runtime reports its own end (a panic) only as a warning, and a dead runtime never
 * answers again: the thread then ends, with the panic's message, so that the server starts
 * a fresh one.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
// What the Go runtime prints (its stdout and stderr come here): only a panic's first line is kept.
let panic = '';
console.log = (...args) => {
  const line = args.join(' ');
  if (!panic && /^(panic|fatal error):/.test(line)) panic = line;
};
console.warn = (...args) => {
  if (String(args[0]).startsWith('exit code')) {
    parentPort.postMessage({ died: panic });
    process.exit(1);
  }
};
require(workerData.module).ready.then(
  ({ api }) => {
    parentPort.on('message', async ({ id, zpl, widthMm, heightMm, dpmm }) => {
      try {
        const png = await api.zplToBase64Async(zpl, widthMm, heightMm, dpmm);
        parentPort.postMessage({ id, png });
      } catch (error) {
        parentPort.postMessage({ id, error: String((error && error.message) || error) });
      }
    });
    parentPort.postMessage({ ready: true });
  },
  (error) => parentPort.postMessage({ failed: String((error && error.message) || error) }),
);
`;

type Answer =
  | { ready: true }
  | { failed: string }
  | { died: string }
  | { id: number; png: string }
  | { id: number; error: string };

/** The drawing thread, once it has loaded the package. */
interface Painter {
  worker: Worker;
  /** The next answer of the thread, or its end. */
  next(): Promise<Answer | { exited: number }>;
}

function startPainter(): Promise<Painter> {
  const module = createRequire(import.meta.url).resolve('zpl-renderer-js');
  const worker = new Worker(threadSource, { eval: true, workerData: { module } });
  const answers: (Answer | { exited: number })[] = [];
  let waiting: ((answer: Answer | { exited: number }) => void) | undefined;
  const deliver = (answer: Answer | { exited: number }) => {
    if (waiting) {
      const wake = waiting;
      waiting = undefined;
      wake(answer);
    } else answers.push(answer);
  };
  worker.on('message', deliver);
  worker.on('error', (error) => deliver({ failed: error.message }));
  worker.on('exit', (code) => deliver({ exited: code }));
  const painter: Painter = {
    worker,
    next: () =>
      answers.length > 0
        ? Promise.resolve(answers.shift()!)
        : new Promise((resolve) => {
            waiting = resolve;
          }),
  };
  return within(painter, loadLimitMs, painter.next()).then((answer) => {
    worker.unref();
    if (answer && 'ready' in answer) return painter;
    void worker.terminate();
    throw new Error(`The ZPL renderer did not load: ${reasonOf(answer)}`);
  });
}

/** `answer`, or undefined once `ms` have passed; the thread keeps the process alive meanwhile. */
async function within<T>(painter: Painter, ms: number, answer: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  painter.worker.ref();
  try {
    return await Promise.race([
      answer,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    painter.worker.unref();
  }
}

const reasonOf = (answer: Answer | { exited: number } | undefined) => {
  if (answer === undefined) return 'it took too long';
  if ('failed' in answer) return answer.failed;
  if ('died' in answer) return answer.died || 'the renderer stopped';
  if ('exited' in answer) return `its thread ended (${answer.exited})`;
  // Zebrash's own words, without its wrapper's prefix: "failed to draw zpl element: …".
  if ('error' in answer) return answer.error.replace(/^(Error rendering|Unexpected error): /, '');
  return 'an unexpected answer';
};

// One thread for the process, started by the first label and kept (unreferenced: it never
// keeps the process alive); labels are drawn one at a time, in the order they come.
let painter: Promise<Painter> | undefined;
let queue: Promise<unknown> = Promise.resolve();
let serial = 0;

/**
 * The label as a PNG `size.widthDots` × `size.heightDots` pixels, one pixel a dot. The
 * ZPL's first label is drawn. A label the renderer refuses, or that takes longer than
 * `drawLimitMs`, is a 422 on `source`.
 */
export function labelToPng(zpl: string, size: LabelSize): Promise<Buffer> {
  const turn = queue.then(() => draw(zpl, size));
  queue = turn.catch(() => {});
  return turn;
}

async function draw(zpl: string, { widthDots, heightDots, dpmm }: LabelSize): Promise<Buffer> {
  painter ??= startPainter().catch((error: unknown) => {
    painter = undefined;
    throw error;
  });
  const current = await painter;
  const id = ++serial;
  current.worker.postMessage({
    id,
    zpl,
    widthMm: widthDots / dpmm,
    heightMm: heightDots / dpmm,
    dpmm,
  });
  const answer = await within(current, drawLimitMs, current.next());
  if (answer && 'png' in answer && answer.id === id) return Buffer.from(answer.png, 'base64');
  // Zebrash counts a label with nothing drawn on it (`^XA^XZ`, or only empty fields) as no
  // label: it is a blank one. ZPL without `^XA` holds no label at all, as a printer sees it.
  if (answer && 'error' in answer && answer.id === id && /no labels parsed/i.test(answer.error)) {
    if (!/\^XA/i.test(zpl)) {
      throw invalidField(
        'source',
        'The ZPL holds no label: a label starts with ^XA and ends with ^XZ.',
      );
    }
    const pixels = new Uint8Array(widthDots * heightDots).fill(255);
    return bitmapToPng({ width: widthDots, height: heightDots, pixels });
  }
  if (!answer || !('error' in answer) || answer.id !== id) {
    // Too long, or the runtime died: this thread is done with; the next label starts another.
    painter = undefined;
    void current.worker.terminate();
  }
  const reason =
    answer === undefined ? `it took longer than ${drawLimitMs / 1000} s` : reasonOf(answer);
  throw invalidField('source', `The label's ZPL cannot be drawn: ${reason}.`);
}

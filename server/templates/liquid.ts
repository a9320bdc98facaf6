import {
  Context,
  type Emitter,
  Liquid,
  LiquidError,
  Tag,
  type TagToken,
  type Template,
  type TopLevelToken,
  Value,
} from 'liquidjs';
import type { TemplateKind } from '../../shared/templates.ts';
import { invalidField } from '../domain-errors.ts';
import { escapeReceiptLine, escapeZplField } from './render/escape.ts';

/**
 * The Liquid engines: one per kind of document, each escaping every output for its
 * language (`render/escape.ts`), with the limits that keep a template or its data from
 * hanging or exhausting the server (docs/templates.md, "Limits").
 */

/** Largest rendered document, in characters (a receipt is a few KB). */
export const maxRenderedLength = 8 * 1024 * 1024;
/**
 * Milliseconds one render may take, wall time: liquidjs's own `renderLimit`, which it checks
 * before each tag, output and piece of text. Nested loops of 10^4 × 10^4 turns stop here, a
 * 422. Not lower: on a loaded machine a render of a few milliseconds of CPU was measured
 * taking over 100 ms, and a good template must not fail because the server was busy.
 * (liquidjs declares a count of steps, `templateLimit`, that would stop such loops in tens of
 * milliseconds whatever the load, but does not enforce it: docs/internals.md, "Libraries".)
 */
const renderLimitMs = 1000;
/** Elements or characters one render may create (liquidjs counts ranges, joins, strings). */
const memoryLimit = 16 * 1024 * 1024;

/** liquidjs's words when a render passes `renderLimit`, and ours for a person. */
const renderLimitWords = 'template render limit exceeded';
/**
 * The limit of a render that runs on the event loop (the checks when a template is saved and
 * when a job of a template that writes codes is created): a quarter of a render thread's, so
 * that a template looping without end holds every request for 0.25 s, not 1 s, while a good
 * template has room on a busy machine.
 */
export const eventLoopRenderLimitMs = 250;

/**
 * `money`: a number (major units) with two decimals, or as many as asked, and an optional
 * currency after it: `{{ 2.5 | money }}` → `2.50`, `{{ 2.5 | money: "EUR" }}` → `2.50 EUR`.
 * A string that is a number is taken as one; anything else prints as it is.
 */
function money(value: unknown, currency?: unknown, decimals?: unknown): string {
  const amount = typeof value === 'number' ? value : Number(value);
  if (typeof value === 'boolean' || value === null || value === '' || !Number.isFinite(amount)) {
    return String(value ?? '');
  }
  const places = typeof decimals === 'number' && decimals >= 0 && decimals <= 6 ? decimals : 2;
  const text = amount.toFixed(places);
  return typeof currency === 'string' && currency !== '' ? `${text} ${currency}` : text;
}

/** A template's images by name (`assets` of a version): PNG or JPEG in base64. */
export type TemplateAssets = Record<string, string>;

/** The assets of each render in progress, by its context (a render sees its own only). */
const assetsOf = new WeakMap<Context, TemplateAssets>();

/**
 * `{% image "logo" %}`: the template's asset of that name as a ReceiptLine image line
 * (`{image:…}`), to stand on a line of its own. Its bytes go into the document as they were
 * saved (checked to be a PNG or JPEG then: base64 only, nothing to escape); scaling and
 * dithering for the paper come at the drawing (`render/images.ts`). An asset the template
 * does not have stops the render, naming it.
 */
class ImageTag extends Tag {
  readonly asset: Value;

  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
    super(token, remainTokens, liquid);
    if (token.args.trim() === '') throw new Error('image needs the name of an asset');
    this.asset = new Value(token.args, liquid);
  }

  *render(context: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    const name = yield this.asset.value(context, false);
    const assets = assetsOf.get(context) ?? {};
    if (typeof name !== 'string' || !Object.hasOwn(assets, name)) {
      throw new Error(`the template has no image asset named ${JSON.stringify(name)}`);
    }
    emitter.write(`{image:${assets[name]}}`);
  }
}

function engineFor(escapeOutput: (value: unknown) => string): Liquid {
  const engine = new Liquid({
    outputEscape: escapeOutput,
    strictFilters: true,
    ownPropertyOnly: true,
    parseLimit: 1024 * 1024,
    renderLimit: renderLimitMs,
    memoryLimit,
    cache: false,
    // No file system: a template includes nothing.
    templates: {},
  });
  engine.registerFilter('money', money);
  engine.registerTag('image', ImageTag);
  return engine;
}

/**
 * One engine a kind, made by the first template of that kind: making one costs ~30 ms of
 * CPU (liquidjs asks Intl for the locale), which a start that renders no template need not
 * pay.
 */
const escapers: Record<TemplateKind, (value: unknown) => string> = {
  receipt: escapeReceiptLine,
  label: escapeZplField,
};
const engines: Partial<Record<TemplateKind, Liquid>> = {};
const engineOf = (kind: TemplateKind): Liquid => (engines[kind] ??= engineFor(escapers[kind]));

/** Line and column of a Liquid error, as a person reads them. */
function whereOf(error: LiquidError): string {
  const [line, column] = error.token?.getPosition?.() ?? [0, 0];
  return `line ${line}, column ${column}`;
}

/** The message without liquidjs's own `, line:1, col:2` suffix and its source excerpt. */
const messageOf = (error: Error) =>
  error.message.split('\n')[0]!.replace(/, line:\d+, col:\d+$/, '');

/**
 * The template parsed, or a 422 on `source` naming the line and column of the first error
 * (a tag left open, an unknown filter).
 */
function parseTemplate(kind: TemplateKind, source: string): Template[] {
  try {
    return engineOf(kind).parse(source);
  } catch (error) {
    if (error instanceof LiquidError) {
      throw invalidField(
        'source',
        `The template has an error at ${whereOf(error)}: ${messageOf(error)}.`,
      );
    }
    throw error;
  }
}

/** Parsed templates by kind and source: parsing costs more than rendering a receipt. */
const parsed = new Map<string, Template[]>();
const maxParsed = 500;

export function parsedTemplate(kind: TemplateKind, source: string): Template[] {
  const key = `${kind}\u0000${source}`;
  let templates = parsed.get(key);
  if (!templates) {
    templates = parseTemplate(kind, source);
    if (parsed.size >= maxParsed) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, templates);
  }
  return templates;
}

/** Where a render's refusal is reported: the field, and with what the render ran. */
export interface RenderRefusal {
  field: string;
  /** Ends "The template could not be rendered …": `with this data`, `without data`. */
  withWhat: string;
}

const withThisData: RenderRefusal = { field: 'data', withWhat: 'with this data' };

/**
 * The document with the data filled in, every output escaped for the kind. A render past
 * the limits (time, memory, length) is a 422 on `refusal.field` (`data` by default).
 */
export function renderLiquid(
  kind: TemplateKind,
  source: string,
  data: object,
  refusal: RenderRefusal = withThisData,
  assets: TemplateAssets = {},
  limitMs: number = renderLimitMs,
): string {
  const templates = parsedTemplate(kind, source);
  const engine = engineOf(kind);
  // A context of this render's own (liquidjs's public constructor, as its `render` makes
  // one), so that `{% image %}` finds this render's assets; its limits are the engine's
  // options, the clock counted from now.
  const context = new Context(
    data,
    engine.options,
    { sync: true, renderLimit: limitMs },
    { liquid: engine },
  );
  assetsOf.set(context, assets);
  let text: string;
  try {
    text = engine.renderSync(templates, context) as string;
  } catch (error) {
    if (error instanceof LiquidError || error instanceof RangeError) {
      const said = messageOf(error);
      throw invalidField(
        refusal.field,
        `The template could not be rendered ${refusal.withWhat}: ${said === renderLimitWords ? `it passed its limit of ${limitMs} ms` : said}.`,
      );
    }
    throw error;
  }
  if (text.length > maxRenderedLength) {
    throw invalidField(
      refusal.field,
      `The rendered document is longer than ${maxRenderedLength} characters.`,
    );
  }
  return text;
}

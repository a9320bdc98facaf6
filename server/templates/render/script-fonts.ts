import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { monoFontFile } from './fonts.ts';

/**
 * The fonts for scripts a receipt printer's code page cannot hold, Noto from npm (SIL Open
 * Font License), shaped by HarfBuzz (the npm package harfbuzzjs, WebAssembly). Neither is
 * loaded when the server starts: `scriptFonts()` loads HarfBuzz and the faces with the first
 * line that needs them, on the render thread that draws it, and keeps them for its next
 * lines (the CJK face is 8 MB).
 */
const require = createRequire(import.meta.url);

/**
 * A font file of an @embedpdf/fonts-* package: the package exports only the list of its
 * files (`fonts`), which sit in its `fonts/` folder beside `dist/`.
 */
const embedpdfFont = (name: string, file: string) =>
  join(dirname(require.resolve(name)), '..', 'fonts', file);

/** The scripts drawn, each with its face. `latin` draws what sits between them (digits, Latin). */
const fontFiles = {
  // Noto Sans CJK SC (the `Hans` subset): Han, kana, CJK punctuation and fullwidth forms.
  cjk: embedpdfFont('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf'),
  thai: require.resolve('@expo-google-fonts/noto-sans-thai/400Regular/NotoSansThai_400Regular.ttf'),
  arabic: embedpdfFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'),
  hebrew: embedpdfFont('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Regular.ttf'),
  devanagari: require.resolve(
    '@expo-google-fonts/noto-sans-devanagari/400Regular/NotoSansDevanagari_400Regular.ttf',
  ),
  latin: monoFontFile,
} as const;

export type ScriptFont = keyof typeof fontFiles;

/** Which face draws a character; undefined for one that takes its neighbour's (space, punctuation). */
export function fontFor(char: string): ScriptFont | undefined {
  if (cjkChar.test(char)) return 'cjk';
  if (/\p{Script=Thai}/u.test(char)) return 'thai';
  if (/\p{Script=Arabic}/u.test(char)) return 'arabic';
  if (/\p{Script=Hebrew}/u.test(char)) return 'hebrew';
  if (/\p{Script=Devanagari}/u.test(char)) return 'devanagari';
  if (/[\p{L}\p{N}]/u.test(char)) return 'latin';
  return undefined;
}

/** By Script_Extensions: the prolonged sound mark `ー` and `、。` are CJK, not Common. */
const cjkChar =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Bopomofo}\u3000-\u303f\uff00-\uffef]/u;

/** Characters of the scripts drawn here (not Latin): a line with one needs its glyphs. */
export const drawnScript =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Bopomofo}\u3000-\u303f\uff01-\uffef\p{Script=Thai}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Devanagari}]/u;

type HarfBuzz = typeof import('harfbuzzjs');

/**
 * A loaded face: HarfBuzz's font, its units an em, and its glyphs drawn (grey, 0 black), once
 * each in each style (keyed by script-lines.ts from the glyph and its style).
 */
export interface LoadedFont {
  font: InstanceType<HarfBuzz['Font']>;
  upem: number;
  glyphs: Map<number, Uint8Array | null>;
}

export interface ScriptFonts {
  hb: HarfBuzz;
  /**
   * The one buffer shaping uses, reset for each run: harfbuzzjs frees a buffer's WebAssembly
   * memory only when its object is collected, and that memory never shrinks (a new buffer a
   * run grew a render thread by ~1 MiB a receipt).
   */
  buffer: InstanceType<HarfBuzz['Buffer']>;
  /** The face of a script, read at its first use (a receipt in Thai never reads the CJK face). */
  face(script: ScriptFont): LoadedFont;
  /**
   * Keeps a drawn glyph in its face's `glyphs`, within `keptGlyphBytes` for every face
   * together: past it, the glyphs kept so far are dropped, and drawn again when next needed.
   */
  keepGlyph(font: LoadedFont, key: number, pixels: Uint8Array | null): void;
  /** The bytes of the glyphs kept now. */
  keptBytes(): number;
}

/**
 * What the drawn glyphs of a thread may hold: ~3,000 glyphs at normal size (5 KiB each), ~80
 * at six times (190 KiB). Without a bound, a template with every size and thousands of
 * different characters would keep hundreds of MiB in a render thread (outside V8's heap, so
 * outside its memory limit) for as long as it runs.
 */
const keptGlyphBytes = 16 * 1024 * 1024;

let loading: Promise<ScriptFonts> | undefined;

/** HarfBuzz, loaded once a thread at its first use; the faces at theirs. */
export function scriptFonts(): Promise<ScriptFonts> {
  loading ??= loadHarfBuzz();
  return loading;
}

async function loadHarfBuzz(): Promise<ScriptFonts> {
  const hb = await import('harfbuzzjs');
  const faces = new Map<ScriptFont, LoadedFont>();
  const face = (script: ScriptFont): LoadedFont => {
    let loaded = faces.get(script);
    if (!loaded) {
      const file = readFileSync(fontFiles[script]);
      const hbFace = new hb.Face(new hb.Blob(file));
      letGo(file);
      loaded = { font: new hb.Font(hbFace), upem: hbFace.upem, glyphs: new Map() };
      faces.set(script, loaded);
    }
    return loaded;
  };
  let kept = 0;
  const keepGlyph = (font: LoadedFont, key: number, pixels: Uint8Array | null) => {
    const size = pixels?.length ?? 0;
    if (kept + size > keptGlyphBytes) {
      for (const loaded of faces.values()) loaded.glyphs.clear();
      kept = 0;
    }
    font.glyphs.set(key, pixels);
    kept += size;
  };
  return { hb, face, keepGlyph, keptBytes: () => kept, buffer: new hb.Buffer() };
}

/**
 * A font file's bytes freed now: harfbuzzjs copies them into its WebAssembly memory (`Blob`),
 * and the file's own copy (8 MB for the CJK face) would otherwise stay until the thread's next
 * collection, tens of receipts later. Detaching the buffer (`ArrayBuffer.transfer`) releases its
 * memory at once; only a buffer the file has to itself (not a slice of Node's shared pool).
 */
function letGo(file: Buffer): void {
  const { buffer } = file;
  if (
    buffer instanceof ArrayBuffer &&
    file.byteOffset === 0 &&
    file.byteLength === buffer.byteLength
  ) {
    buffer.transfer(0);
  }
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, root, sourceFiles } from './import-graph.ts';

/**
 * The drawing (ReceiptLine, resvg, and HarfBuzz with the Noto faces: 8 MiB and more a thread
 * that draws a script) is loaded by the render threads only, never by the server's main
 * thread (docs/templates.md, "Scripts" and "Limits"): render-document.ts loads it with the
 * first document it draws, and only the render thread asks it to draw.
 */

const files = ['server', 'shared', 'cli'].flatMap(sourceFiles);
const edges = files.flatMap(importsOf);
const inRendering = (file: string) =>
  file === 'server/templates/render-document.ts' || file.startsWith('server/templates/render/');

describe('the drawing and the fonts', () => {
  it('are imported, even lazily, only inside the rendering (render-document.ts, render/)', () => {
    const drawing = edges.filter(
      ({ to, typeOnly }) =>
        !typeOnly &&
        (to === 'harfbuzzjs' ||
          to === 'server/templates/render/draw.ts' ||
          to === 'server/templates/render/script-fonts.ts'),
    );
    expect(drawing.length).toBeGreaterThan(0);
    expect(drawing.map(({ from }) => from).filter((from) => !inRendering(from))).toEqual([]);
  });

  it('are set to work by the render thread alone (renderDocument, loadDrawing)', () => {
    const callers = files.filter(
      (file) =>
        !inRendering(file) &&
        /\b(renderDocument|loadDrawing)\s*\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(callers).toEqual(['server/templates/render-thread.ts']);
  });
});

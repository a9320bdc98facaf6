import { invalidField } from '../domain-errors.ts';

/**
 * ReceiptLine's `{command:…}` property (`x:` for short) sends its value to the printer as
 * it is: escaping cannot keep data out of it (a control character is a command there). So a
 * receipt template may not put a Liquid output in one, unless the output ends with `| raw`,
 * the template's explicit choice (docs/templates.md, "Data is data, never markup"): a 422 on
 * `source` when the template is saved.
 */

/** A Liquid output, and whether it ends with `| raw`. */
const output = /\{\{-?([\s\S]*?)-?\}\}/g;
const endsRaw = /\|\s*raw\s*$/;
/** Where an output was, in a line with the outputs replaced and the tags taken out. */
const dataMark = '\u0001';
/** A ReceiptLine property: braces with no brace inside. */
const property = /\{([^{}]*)\}/g;

export function checkCommandProperties(source: string): void {
  for (const [index, line] of source.split('\n').entries()) {
    const marked = line
      .replace(output, (_, expression: string) => (endsRaw.test(expression) ? '' : dataMark))
      .replace(/\{%[\s\S]*?%\}/g, '');
    for (const [, body] of marked.matchAll(property)) {
      for (const member of body!.split(';')) {
        const [key, ...value] = member.split(':');
        if (/^[\t ]*(command|x)[\t ]*$/.test(key ?? '') && value.join(':').includes(dataMark)) {
          throw invalidField(
            'source',
            `The template puts data in a {command:…} property at line ${index + 1}, which sends it to the printer as commands: only an output ending with | raw may go there.`,
          );
        }
      }
    }
  }
}

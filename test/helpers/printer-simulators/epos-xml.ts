/**
 * A strict reader of the XML an Epson printer gets from Server Direct Print, as the printer
 * would read it: elements, attributes and text, character references decoded. Anything that
 * is not well-formed (a stray `<` or `&`, an unclosed or mismatched element, a character XML
 * cannot hold) throws, so a test sees markup that data broke.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  if (/[<]/.test(text)) throw new Error(`a stray < in ${JSON.stringify(text.slice(0, 40))}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters.
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f]/.test(text)) throw new Error('a control character');
  return text.replace(/&([^;]*);|&/g, (_whole, ref: string | undefined) => {
    if (ref === undefined) throw new Error('a stray &');
    if (ref in named) return named[ref]!;
    const code = /^#x([0-9a-f]+)$/i.exec(ref)?.[1] ?? /^#(\d+)$/.exec(ref)?.[1];
    if (code === undefined) throw new Error(`an unknown entity &${ref};`);
    return String.fromCodePoint(ref.startsWith('#x') ? Number.parseInt(code, 16) : Number(code));
  });
}

const tagPattern = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"<]*")*)\s*(\/?)>/y;
const attributePattern = /([\w:.-]+)\s*=\s*"([^"]*)"/g;

/** The document's root element; throws when it is not well-formed. */
export function parseXml(xml: string): XmlElement {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#document', attributes: {}, children: [] };
  const open: XmlElement[] = [root];
  let at = 0;
  while (at < body.length) {
    const next = body.indexOf('<', at);
    const text = body.slice(at, next === -1 ? body.length : next);
    if (text) open.at(-1)!.children.push(decode(text));
    if (next === -1) break;
    tagPattern.lastIndex = next;
    const tag = tagPattern.exec(body);
    if (!tag) throw new Error(`not a tag at ${JSON.stringify(body.slice(next, next + 40))}`);
    at = tagPattern.lastIndex;
    const [, closing, name, attributeText, selfClosing] = tag;
    if (closing) {
      const top = open.pop();
      if (top?.name !== name) throw new Error(`</${name}> closes <${top?.name}>`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(attributePattern)) {
      attributes[key!] = decode(value!);
    }
    const element: XmlElement = { name: name!, attributes, children: [] };
    open.at(-1)!.children.push(element);
    if (!selfClosing) open.push(element);
  }
  if (open.length !== 1) throw new Error(`<${open.at(-1)!.name}> is not closed`);
  const elements = root.children.filter((c): c is XmlElement => typeof c !== 'string');
  if (elements.length !== 1 || root.children.some((c) => typeof c === 'string' && c.trim())) {
    throw new Error('not one root element');
  }
  return elements[0]!;
}

/** The element's text, its children's included. */
export const textOf = (node: XmlNode): string =>
  typeof node === 'string' ? node : node.children.map(textOf).join('');

/** Every element named `name` under `node`, in document order. */
export function elementsNamed(node: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const child of node.children) {
    if (typeof child === 'string') continue;
    if (child.name === name) found.push(child);
    found.push(...elementsNamed(child, name));
  }
  return found;
}

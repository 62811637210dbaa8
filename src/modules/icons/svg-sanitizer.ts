import type { DOMPurify } from 'dompurify';
import type { JSDOM } from 'jsdom';

const SVG_NS = 'http://www.w3.org/2000/svg';

let shared: { window: JSDOM['window']; purify: DOMPurify } | undefined;

/**
 * One jsdom window and DOMPurify instance for the process (sanitising is synchronous),
 * loaded on the first SVG: jsdom is large, and most processes never need it.
 */
async function tools() {
  if (!shared) {
    const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
    const { window } = new JSDOM('');
    shared = { window, purify: createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]) };
  }
  return shared;
}

export class SvgTooComplex extends Error {}

/**
 * A self-contained, script-free copy of an SVG document, or null when the bytes are not a
 * well-formed XML document whose root is `<svg>` in the SVG namespace.
 *
 * 1. The bytes must be UTF-8 and parse as XML (jsdom's XML parser: no external DTD is
 *    fetched and entities are not expanded recursively). Only the root element is kept, so
 *    the prolog (DOCTYPE, `<?xml-stylesheet?>`) is dropped.
 * 2. DOMPurify with its SVG and SVG-filter profiles, sanitising the parsed tree in place:
 *    removes `<script>`, `<foreignObject>`, `<use>`, animation elements (`<set>`,
 *    `<animate>`), event-handler attributes, comments and processing instructions.
 * 3. Then every external reference goes: `href` / `xlink:href` not starting with `#`,
 *    attributes whose value holds a `url(...)` that is not `url(#...)`, and `<style>`
 *    elements or `style` attributes with `@import`, `@font-face`, a non-fragment `url()`,
 *    `image-set`, `expression(` or CSS escapes (which could hide any of these).
 */
export async function sanitizeSvg(bytes: Buffer): Promise<string | null> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  if (svgTooComplex(text)) throw new SvgTooComplex();
  const { window, purify } = await tools();
  const doc = new window.DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (root?.localName !== 'svg' || root.namespaceURI !== SVG_NS) return null;

  purify.sanitize(root, {
    IN_PLACE: true,
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['script', 'foreignObject', 'foreignobject', 'use', 'set', 'animate'],
    ALLOW_DATA_ATTR: false,
  });
  removeExternalReferences(root);
  if (root.localName !== 'svg' || root.namespaceURI !== SVG_NS) return null;
  return new window.XMLSerializer().serializeToString(root);
}

function removeExternalReferences(root: Element) {
  for (const element of [root, ...Array.from(root.getElementsByTagName('*'))]) {
    if (element.localName === 'style' && !isSafeCss(element.textContent ?? '')) {
      element.remove();
      continue;
    }
    for (const attr of Array.from(element.attributes)) {
      const value = attr.value;
      const unsafe =
        (attr.localName === 'href' && !value.trim().startsWith('#')) ||
        (attr.localName === 'style' && !isSafeCss(value)) ||
        !isSafeCss(value, { urlsOnly: true });
      if (unsafe) element.removeAttributeNS(attr.namespaceURI, attr.localName);
    }
  }
}

/** `url(#id)`, quoted or not: a reference inside the same document. */
const FRAGMENT_URL = /url\(\s*(["']?)#[^"'()\\\s]*\1\s*\)/gi;

/** CSS (or an attribute value) that cannot make the browser fetch anything or run code. */
export function isSafeCss(css: string, options: { urlsOnly?: boolean } = {}): boolean {
  const lower = css.toLowerCase();
  if (/url\s*\(/.test(lower.replace(FRAGMENT_URL, ''))) return false;
  if (options.urlsOnly) return !/javascript\s*:/.test(lower);
  return !/\\|@import|@font-face|image-set|expression\s*\(|-moz-binding|behavior\s*:|javascript\s*:/.test(lower);
}

/** Limits that keep parsing an icon cheap; real icons stay far below them. */
export const SVG_LIMITS = { depth: 64, elements: 5000 } as const;

/** True when the markup nests deeper or holds more elements than an icon needs. */
export function svgTooComplex(text: string): boolean {
  let depth = 0;
  let elements = 0;
  for (const tag of text.matchAll(/<(\/?)[A-Za-z_][^\s/>]*[^>]*?(\/?)>/g)) {
    if (tag[1]) depth--;
    else {
      elements++;
      if (!tag[2]) depth++;
    }
    if (depth > SVG_LIMITS.depth || elements > SVG_LIMITS.elements) return true;
  }
  return false;
}

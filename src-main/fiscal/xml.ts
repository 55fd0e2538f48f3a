// Small helpers to emit NF-e XML directly in canonical (C14N 1.0) form, which is what lets the signer hash
// the bytes as written: no whitespace between tags, no self-closing tags, C14N escaping of text.

const TEXT_SPECIAL = /[&<>\r]/;

/**
 * Escapes element text as C14N 1.0 renders it (&amp; &lt; &gt; and CR as &#xD;). Quotes are left as they are:
 * C14N does not escape them in text, and SEFAZ accepts them.
 */
export function escapeText(value: string): string {
  // Most values (numbers, codes, plain names) need nothing: one test spares the replace and its copy.
  if (!TEXT_SPECIAL.test(value)) return value;
  return value.replace(/[&<>\r]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#xD;',
  );
}

/** Attribute value as C14N 1.0 renders it: &amp; &lt; &quot; and the whitespace controls as references. */
export function escapeAttr(value: string): string {
  return value.replace(/[&<"\t\n\r]/g, (c) =>
    c === '&'
      ? '&amp;'
      : c === '<'
        ? '&lt;'
        : c === '"'
          ? '&quot;'
          : `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`,
  );
}

/** Undoes the escaping of element text (escapeText's and the predefined entities), for a text read back. */
export function unescapeText(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

/** The escaped text of the first `<name>` element without attributes in `xml`, as written. */
export function firstElementText(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
}

/**
 * Free text as the schema's TString allows: no control characters, no leading/trailing or doubled spaces
 * (pattern `[!-ÿ]{1}[ -ÿ]{0,}[!-ÿ]{1}|[!-ÿ]{1}`), characters outside Latin-1 replaced, length cut to `max`.
 * This is what keeps rejection 215/225 (schema failure) from happening on names and descriptions.
 */
export function normalizeFreeText(value: string, max: number): string {
  // Already clean (Latin-1 printable words, single spaces, no edge space; NFC leaves Latin-1 as it is):
  // the usual name or description skips the seven passes below and comes out the same.
  const latin1 = CLEAN_FREE_TEXT.test(value) ? value : cleanFreeText(value);
  return latin1.length <= max ? latin1 : latin1.slice(0, max).trimEnd();
}

const CLEAN_FREE_TEXT = /^[!-~\u00A1-\u00FF]+(?: [!-~\u00A1-\u00FF]+)*$/;

function cleanFreeText(value: string): string {
  return value
    .normalize('NFC')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[^\u0020-\u007E\u00A0-\u00FF]/g, ' ')
    .replace(/\u00A0/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** `<tag>text</tag>` with escaped text. */
export function el(tag: string, text: string | number): string {
  return `<${tag}>${escapeText(String(text))}</${tag}>`;
}

/** Same as `el` but omitted when the value is null/undefined. */
export function opt(tag: string, text: string | number | null | undefined): string {
  return text === null || text === undefined ? '' : el(tag, text);
}

/** `<tag>children</tag>` where children are already XML. */
export function group(tag: string, ...children: string[]): string {
  // Concatenation, not join: join flattens every child into a new string at each level of the note, while
  // + keeps them as ropes until the whole document is used once.
  let out = `<${tag}>`;
  for (const child of children) out += child;
  return `${out}</${tag}>`;
}

// The items of a signed note (det/prod: code, name, quantity and the amounts the customer paid) read from the
// prod groups alone: the sales report by product reads every note of a period, and building the whole output
// model of each note for them cost most of the report (as pag.ts does for the payments).

export interface NoteItem {
  cProd: string;
  xProd: string;
  qCom: string;
  vProd: string;
  vDesc: string | null;
  vFrete: string | null;
  vSeg: string | null;
  vOutro: string | null;
}

const XML_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** Thrown inside: the span holds something this reader does not take (CDATA, markup, an unknown entity). */
class Unreadable extends Error {}

/** Character data as the output model reads it (outputs/model.ts): trimmed, the XML and numeric entities decoded. */
function decode(raw: string): string {
  if (raw.includes('<')) throw new Unreadable();
  const value = raw.trim();
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);|&/g, (whole, name: string | undefined) => {
    if (name === undefined) throw new Unreadable();
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    const known = XML_ENTITIES[name];
    if (known === undefined) throw new Unreadable();
    return known;
  });
}

/** The text of the child `name` of one prod span, or null when it has none. */
function field(span: string, name: string): string | null {
  const open = `<${name}>`;
  const at = span.indexOf(open);
  if (at === -1) return null;
  const start = at + open.length;
  const end = span.indexOf(`</${name}>`, start);
  if (end === -1) throw new Unreadable();
  return decode(span.slice(start, end));
}

function requiredField(span: string, name: string): string {
  const value = field(span, name);
  if (value === null) throw new Unreadable();
  return value;
}

/**
 * The `prod` group of every `det` (MOC 7.0 group I), in item order. In the layout `prod` occurs only there,
 * once per item and without attributes, its fields (cProd, xProd, qCom, vProd, vDesc, vFrete, vSeg, vOutro)
 * are simple elements no group nested in it reuses, and element names cannot occur in text (they would be
 * escaped): so each is found by name, and the taxes, totals, signature and protocol are never read.
 * Null when the note does not read that way (no item, a span cut, CDATA, an unknown entity): the caller then
 * reads it whole.
 */
export function itemsOfXml(xml: string): NoteItem[] | null {
  const items: NoteItem[] = [];
  try {
    for (let at = xml.indexOf('<prod>'); at !== -1; at = xml.indexOf('<prod>', at)) {
      const end = xml.indexOf('</prod>', at);
      if (end === -1) return null;
      const span = xml.slice(at + '<prod>'.length, end);
      items.push({
        cProd: requiredField(span, 'cProd'),
        xProd: requiredField(span, 'xProd'),
        qCom: requiredField(span, 'qCom'),
        vProd: requiredField(span, 'vProd'),
        vDesc: field(span, 'vDesc'),
        vFrete: field(span, 'vFrete'),
        vSeg: field(span, 'vSeg'),
        vOutro: field(span, 'vOutro'),
      });
      at = end;
    }
  } catch (error) {
    if (error instanceof Unreadable) return null;
    throw error;
  }
  return items.length === 0 ? null : items;
}

// The payments of a signed note (pag: detPag tPag/vPag and vTroco) read from the pag group alone: the sales
// report by method reads every note of a period, and parsing only this group is several times faster than
// building the whole output model of each note.
import { XMLParser } from 'fast-xml-parser';

export interface NotePayments {
  detPag: Array<{ tPag: string; vPag: string }>;
  vTroco: string | null;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  // Values stay text: "01" is a tPag code and "10.50" exact money, never numbers.
  parseTagValue: false,
  isArray: (name) => name === 'detPag',
});

const text = (value: unknown): string | null =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : null;

/**
 * The `pag` group of an NF-e/NFC-e (MOC 7.0 group YA). In the layout it appears once, inside infNFe, without
 * attributes, and element names cannot occur in text (it would be escaped), so its span is found by name.
 */
export function paymentsOfXml(xml: string): NotePayments | null {
  const start = xml.indexOf('<pag>');
  const end = start === -1 ? -1 : xml.indexOf('</pag>', start);
  if (start === -1 || end === -1) return null;
  const parsed = parser.parse(xml.slice(start, end + '</pag>'.length)) as {
    pag?: { detPag?: Array<{ tPag?: unknown; vPag?: unknown }>; vTroco?: unknown };
  };
  const pag = parsed.pag;
  if (pag === undefined) return null;
  return {
    detPag: (pag.detPag ?? []).flatMap((d) => {
      const tPag = text(d.tPag);
      const vPag = text(d.vPag);
      return tPag === null || vPag === null ? [] : [{ tPag, vPag }];
    }),
    vTroco: text(pag.vTroco),
  };
}

// The few DOM steps the back office's XML readers (CT-e, DC-e) take over a document of record: the children
// of an element by local name and their text, over any standard DOM (the browser's, or the one tests bring).

/** What is used of a DOM: the browser's DOMParser and the one tests bring agree on these members. */
export interface XmlNode {
  nodeType: number;
  localName: string | null;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode>;
  getAttribute?(name: string): string | null;
}
export interface XmlDocument {
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlNode>;
}
export interface XmlParser {
  parseFromString(xml: string, type: 'application/xml'): unknown;
}

/** The element children of `parent` named `name`, in document order. */
export function elements(parent: XmlNode | null | undefined, name: string): XmlNode[] {
  if (parent === null || parent === undefined) return [];
  return Array.from(parent.childNodes).filter((c) => c.nodeType === 1 && c.localName === name);
}

export function child(parent: XmlNode | null | undefined, name: string): XmlNode | null {
  return elements(parent, name)[0] ?? null;
}

/** The text of the first child named `name`, null when there is none. */
export function text(parent: XmlNode | null | undefined, name: string): string | null {
  return child(parent, name)?.textContent ?? null;
}

/** The first element named `name` in the layout's namespace `ns`, wherever it sits. */
export function firstIn(xml: string, parser: XmlParser, ns: string, name: string): XmlNode | undefined {
  const doc = parser.parseFromString(xml, 'application/xml') as XmlDocument;
  return doc.getElementsByTagNameNS(ns, name)[0];
}

// A document keeps its signed XML once: the authorized copy (nfeProc, cteProc, dceProc) is stored as its opening
// tag and rebuilt on read from the signed XML and the protocol, byte for byte; any copy that does not rebuild so
// exactly is kept whole. Kind-neutral: it knows only the shape `<proc ...>` + signed + protocol + `</proc>`.

/** How a row stores its authorized copy (documents.proc_xml and documents.proc_open, migration 0029). */
export interface StoredProc {
  /** The authorized copy in full, when it is not one of the two shapes `proc_open` describes; else null. */
  proc_xml: string | null;
  /**
   * The copy's opening tag when the copy is exactly that tag + the signed XML (`xml`) + the protocol
   * (`prot_xml`) + its closing tag; '' when the copy is the protocol itself (the NFS-e the national
   * environment returns); null when `proc_xml` holds it (or there is none).
   */
  proc_open: string | null;
}

/** The columns a row's authorized copy is read from. */
export interface ProcColumns {
  xml: string;
  prot_xml: string | null;
  proc_xml: string | null;
  proc_open?: string | null | undefined;
}

// A start tag at the very beginning: the name and its attributes, no markup inside.
const OPENING_TAG = /^<([A-Za-z_][\w.:-]*)(?:\s[^<>]*)?>/;

function wrapped(open: string, xml: string, protXml: string): string | null {
  const name = OPENING_TAG.exec(open)?.[1];
  return name === undefined || open.endsWith('/>') ? null : `${open}${xml}${protXml}</${name}>`;
}

/**
 * The stored form of an authorized copy: compact only when the rebuild gives back exactly `proc` (compared
 * byte for byte here, so an unexpected copy — other whitespace, a protocol cut differently — stays whole).
 */
export function storedProc(proc: string | null, xml: string, protXml: string | null): StoredProc {
  if (proc === null || protXml === null) return { proc_xml: proc, proc_open: null };
  if (proc === protXml) return { proc_xml: null, proc_open: '' };
  const open = OPENING_TAG.exec(proc)?.[0];
  if (open !== undefined && wrapped(open, xml, protXml) === proc) return { proc_xml: null, proc_open: open };
  return { proc_xml: proc, proc_open: null };
}

/** The authorized copy of a stored row, as it was before it was stored (null when the row has none). */
export function procOf(row: ProcColumns): string | null {
  if (row.proc_xml !== null) return row.proc_xml;
  const open = row.proc_open;
  if (open === null || open === undefined || row.prot_xml === null) return null;
  return open === '' ? row.prot_xml : wrapped(open, row.xml, row.prot_xml);
}

/** A row as the code reads it: `proc_xml` is the whole authorized copy, and the storage column is gone. */
export function withProc<T extends ProcColumns>(row: T): Omit<T, 'proc_open'> {
  const { proc_open: _stored, ...rest } = row;
  return { ...rest, proc_xml: procOf(row) };
}

// The registry of document kinds: generic code finds a document's kind from its `modelo` (or a queue row's
// `doc_kind`) here. Kinds are registered in one place (documents/kinds/index.ts), which the service imports.
import type { DocumentKind, KindId } from './kind.ts';

const byId = new Map<KindId, DocumentKind>();
const byModelo = new Map<number, DocumentKind>();

/** Registers a kind; registering the same kind object again is harmless, a different one is a bug. */
export function registerKind(kind: DocumentKind): void {
  const existing = byId.get(kind.id);
  if (existing !== undefined && existing !== kind)
    throw new Error(`document kind ${kind.id} registered twice`);
  byId.set(kind.id, kind);
  byModelo.set(kind.modelo, kind);
}

export function kindById(id: string): DocumentKind {
  const kind = byId.get(id as KindId);
  if (kind === undefined) throw new Error(`no document kind '${id}' is registered`);
  return kind;
}

export function kindOfModelo(modelo: number): DocumentKind {
  const kind = byModelo.get(modelo);
  if (kind === undefined) throw new Error(`no document kind is registered for modelo ${modelo}`);
  return kind;
}

/** The kind of an id, or undefined when none is registered. */
export function findKindById(id: string): DocumentKind | undefined {
  return byId.get(id as KindId);
}

/** The kind of a modelo, or undefined when none is registered (rows of an unknown model are skipped). */
export function findKindOfModelo(modelo: number): DocumentKind | undefined {
  return byModelo.get(modelo);
}

export function registeredKinds(): DocumentKind[] {
  return [...byId.values()];
}

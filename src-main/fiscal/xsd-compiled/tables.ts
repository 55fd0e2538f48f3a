// The shape of the tables scripts/compile-xsd.ts generates from resources/xsd (one module per schema folder
// under generated/), read by the one-pass checker in check.ts. Data only: no code runs at import.

/** Built-in XSD types the checker knows how to check lexically (everything else is compiled as unsupported). */
export type Builtin =
  | 'string'
  | 'normalizedString'
  | 'token'
  | 'ID'
  | 'anyURI'
  | 'base64Binary'
  | 'integer'
  | 'decimal'
  | 'dateTime'
  | 'date'
  | 'gYearMonth';

/**
 * One facet check, in derivation order (a value must pass all of them):
 * - `['p', jsSource, xsdSource]`: the patterns of one derivation step, alternatives joined, anchored;
 * - `['e', values]`: the enumeration of one step;
 * - `['l' | 'minl' | 'maxl', n]`: length facets in characters;
 * - `['td' | 'fd', n]`: totalDigits / fractionDigits;
 * - `['mini' | 'maxi' | 'mine' | 'maxe', decimal]`: bounds of integer and decimal types.
 */
export type FacetCheck =
  | readonly ['p', string, string]
  | readonly ['e', readonly string[]]
  | readonly ['l' | 'minl' | 'maxl' | 'td' | 'fd', number]
  | readonly ['mini' | 'maxi' | 'mine' | 'maxe', string];

/** whiteSpace facet: 0 preserve, 1 replace, 2 collapse. */
export type WhiteSpace = 0 | 1 | 2;

export interface SimpleTypeTable {
  readonly k: 's';
  /** Name for messages: `{ns}local`, or '' for an anonymous type. */
  readonly name: string;
  readonly b: Builtin;
  readonly ws: WhiteSpace;
  readonly f: readonly FacetCheck[];
}

export interface AttributeTable {
  readonly n: string;
  /** Index of the attribute's simple type in `types`. */
  readonly t: number;
  /** Required. */
  readonly r?: 1;
  /** Fixed value. */
  readonly f?: string;
}

/** A particle of a content model: an element declaration, or a sequence/choice group. max -1 = unbounded. */
export type ParticleTable =
  | { readonly e: number; readonly n: number; readonly x: number }
  /** xs:any: processContents `w`; `o` null for ##any, else the namespace ##other excludes (with no namespace). */
  | {
      readonly w: 'skip' | 'lax' | 'strict';
      readonly o: string | null;
      readonly n: number;
      readonly x: number;
    }
  | { readonly g: 's' | 'c'; readonly n: number; readonly x: number; readonly i: readonly ParticleTable[] };

export interface ComplexTypeTable {
  readonly k: 'c';
  readonly name: string;
  readonly a: readonly AttributeTable[];
  /** Content: 0 empty, 1 element-only (model `m`), 2 simple content of type `s`. */
  readonly c: 0 | 1 | 2;
  readonly m?: ParticleTable;
  readonly s?: number;
  /** Mixed content: text is allowed between the children. */
  readonly mx?: 1;
  /** xs:anyAttribute processContents="skip": undeclared attributes are allowed and not checked. */
  readonly aa?: 1;
}

/** A construct the generator does not compile: a document reaching it is answered "unsupported". */
export interface UnsupportedTable {
  readonly k: 'x';
  readonly why: string;
}

export type TypeTable = SimpleTypeTable | ComplexTypeTable | UnsupportedTable;

/** xs:unique over the owner's children (`sel` null = every child, else the children of that local name). */
export interface UniqueTable {
  readonly name: string;
  readonly sel: string | null;
  readonly attr: string;
}

export interface ElementTable {
  readonly ns: string;
  readonly n: string;
  readonly t: number;
  readonly u?: readonly UniqueTable[];
  /** Fixed value of a simple-typed element (xServ of the consultation messages). */
  readonly f?: string;
}

export interface FolderTables {
  readonly folder: string;
  readonly types: readonly TypeTable[];
  readonly elements: readonly ElementTable[];
  /** Root .xsd file -> its global elements by `{ns}local`. */
  readonly roots: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

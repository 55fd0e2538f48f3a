// XSD validation of NF-e/NFC-e documents, events and inutilização against the official schemas shipped in
// resources/xsd, with libxml2 compiled to WebAssembly (no native rebuild for Node or Electron).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ParseOption,
  XmlAttribute,
  XmlDocument,
  XmlElement,
  XmlError,
  XmlLibError,
  XmlValidateError,
  XsdValidator,
  xmlRegisterInputProvider,
} from 'libxml2-wasm';
import type { ErrorDetail, XmlNode } from 'libxml2-wasm';
import { resourcePath } from '../paths.ts';
import { validateCompiled } from './xsd-compiled/index.ts';

export const NFE_NAMESPACE = 'http://www.portalfiscal.inf.br/nfe';
export const CTE_NAMESPACE = 'http://www.portalfiscal.inf.br/cte';
export const NFSE_NAMESPACE = 'http://www.sped.fazenda.gov.br/nfse';
export const DCE_NAMESPACE = 'http://www.portalfiscal.inf.br/dce';

/**
 * NF-e schema package. PL_010 (NT 2025.002, sped-nfe PL_010_V1.30) carries the IBS/CBS/IS groups and
 * the alphanumeric CNPJ and is the one in force in 2026; PL_009 is kept for documents issued before it.
 */
export type SchemaPackage = 'PL_009' | 'PL_010';
export const DEFAULT_SCHEMA_PACKAGE: SchemaPackage = 'PL_010';

type Family = 'nfe' | 'evento' | 'cte' | 'nfse' | 'dce';

interface SchemaEntry {
  family: Family;
  /** Root file inside the package folder; libxml2 follows its xs:include/xs:import from there. */
  file: string;
  /** Expected root element (namespace NFE_NAMESPACE; CTE_, NFSE_ or DCE_NAMESPACE for those families). */
  root: string;
}

function namespaceOf(family: Family): string {
  if (family === 'nfse') return NFSE_NAMESPACE;
  if (family === 'dce') return DCE_NAMESPACE;
  return family === 'cte' ? CTE_NAMESPACE : NFE_NAMESPACE;
}

// One entry per document we validate. Events are split by type because the generic envEvento/procEventoNFe
// schemas declare detEvento as xs:any processContents="skip": they would accept any event detail.
const SCHEMAS = {
  // NF-e / NFC-e 4.00
  nfe: { family: 'nfe', file: 'nfe_v4.00.xsd', root: 'NFe' },
  enviNFe: { family: 'nfe', file: 'enviNFe_v4.00.xsd', root: 'enviNFe' },
  procNFe: { family: 'nfe', file: 'procNFe_v4.00.xsd', root: 'nfeProc' },
  consReciNFe: { family: 'nfe', file: 'consReciNFe_v4.00.xsd', root: 'consReciNFe' },
  consSitNFe: { family: 'nfe', file: 'consSitNFe_v4.00.xsd', root: 'consSitNFe' },
  consStatServ: { family: 'nfe', file: 'consStatServ_v4.00.xsd', root: 'consStatServ' },
  inutNFe: { family: 'nfe', file: 'inutNFe_v4.00.xsd', root: 'inutNFe' },
  // The official root element really is spelled ProcInutNFe (capital P), unlike nfeProc/procEventoNFe.
  procInutNFe: { family: 'nfe', file: 'procInutNFe_v4.00.xsd', root: 'ProcInutNFe' },
  // Authority responses, for checking what comes back before it is stored.
  retEnviNFe: { family: 'nfe', file: 'retEnviNFe_v4.00.xsd', root: 'retEnviNFe' },
  retConsReciNFe: { family: 'nfe', file: 'retConsReciNFe_v4.00.xsd', root: 'retConsReciNFe' },
  retConsSitNFe: { family: 'nfe', file: 'retConsSitNFe_v4.00.xsd', root: 'retConsSitNFe' },
  retConsStatServ: { family: 'nfe', file: 'retConsStatServ_v4.00.xsd', root: 'retConsStatServ' },
  retInutNFe: { family: 'nfe', file: 'retInutNFe_v4.00.xsd', root: 'retInutNFe' },
  // Events 1.00: request batch (envEvento) and the authorised event (procEventoNFe) per event type.
  'envEvento-cancelamento': { family: 'evento', file: 'envEventoCancNFe_v1.00.xsd', root: 'envEvento' },
  'envEvento-cancSubst': { family: 'evento', file: 'envEventoCancSubst_v1.00.xsd', root: 'envEvento' },
  'envEvento-cce': { family: 'evento', file: 'envCCe_v1.00.xsd', root: 'envEvento' },
  'envEvento-manifestacao': { family: 'evento', file: 'envConfRecebto_v1.00.xsd', root: 'envEvento' },
  'envEvento-epec': { family: 'evento', file: 'envEPEC_v1.00.xsd', root: 'envEvento' },
  'procEventoNFe-cancelamento': {
    family: 'evento',
    file: 'procEventoCancNFe_v1.00.xsd',
    root: 'procEventoNFe',
  },
  'procEventoNFe-cancSubst': {
    family: 'evento',
    file: 'procEventoCancSubst_v1.00.xsd',
    root: 'procEventoNFe',
  },
  'procEventoNFe-cce': { family: 'evento', file: 'procCCeNFe_v1.00.xsd', root: 'procEventoNFe' },
  'procEventoNFe-manifestacao': {
    family: 'evento',
    file: 'procConfRecebtoNFe_v1.00.xsd',
    root: 'procEventoNFe',
  },
  'procEventoNFe-epec': { family: 'evento', file: 'procEPEC_v1.00.xsd', root: 'procEventoNFe' },
  // The response carries no detEvento, so the generic schema checks all of it.
  retEnvEvento: { family: 'evento', file: 'retEnvEvento_v1.00.xsd', root: 'retEnvEvento' },
  // CT-e 4.00 (model 57). cte_v4.00.xsd leaves infModal as xs:any, so the road modal is checked on its own
  // with `cteModalRodoviario` (root rodo) on the extracted group.
  cte: { family: 'cte', file: 'cte_v4.00.xsd', root: 'CTe' },
  cteModalRodoviario: { family: 'cte', file: 'cteModalRodoviario_v4.00.xsd', root: 'rodo' },
  // CT-e 4.00 web services: requests, answers and the distributed documents. eventoCTe/procEventoCTe leave
  // detEvento as xs:any, so each event's own group (evCancCTe, evCCeCTe) is checked on its own.
  consSitCTe: { family: 'cte', file: 'consSitCTe_v4.00.xsd', root: 'consSitCTe' },
  consStatServCTe: { family: 'cte', file: 'consStatServCTe_v4.00.xsd', root: 'consStatServCTe' },
  eventoCTe: { family: 'cte', file: 'eventoCTe_v4.00.xsd', root: 'eventoCTe' },
  evCancCTe: { family: 'cte', file: 'evCancCTe_v4.00.xsd', root: 'evCancCTe' },
  evCCeCTe: { family: 'cte', file: 'evCCeCTe_v4.00.xsd', root: 'evCCeCTe' },
  retCTe: { family: 'cte', file: 'retCTe_v4.00.xsd', root: 'retCTe' },
  retConsSitCTe: { family: 'cte', file: 'retConsSitCTe_v4.00.xsd', root: 'retConsSitCTe' },
  retConsStatServCTe: { family: 'cte', file: 'retConsStatServCTe_v4.00.xsd', root: 'retConsStatServCTe' },
  retEventoCTe: { family: 'cte', file: 'retEventoCTe_v4.00.xsd', root: 'retEventoCTe' },
  procCTe: { family: 'cte', file: 'procCTe_v4.00.xsd', root: 'cteProc' },
  procEventoCTe: { family: 'cte', file: 'procEventoCTe_v4.00.xsd', root: 'procEventoCTe' },
  // National NFS-e: the DPS we sign and send, and the NFS-e the national environment returns.
  dps: { family: 'nfse', file: 'DPS_v1.01.xsd', root: 'DPS' },
  nfse: { family: 'nfse', file: 'NFSe_v1.01.xsd', root: 'NFSe' },
  // NFS-e events: the pedido de registro we sign and send, and the event the national environment registers.
  'nfse-evento': { family: 'nfse', file: 'pedRegEvento_v1.01.xsd', root: 'pedRegEvento' },
  'nfse-evento-registrado': { family: 'nfse', file: 'evento_v1.01.xsd', root: 'evento' },
  // DC-e 1.00 (model 99): the declaration, its authorized form, the cancellation event and the web services'
  // messages. eventoDCe/procEventoDCe leave detEvento as xs:any, so evCancDCe checks the cancellation's group.
  dce: { family: 'dce', file: 'dce_v1.00.xsd', root: 'DCe' },
  dceProc: { family: 'dce', file: 'procDCe_v1.00.xsd', root: 'dceProc' },
  eventoDCe: { family: 'dce', file: 'eventoDCe_v1.00.xsd', root: 'eventoDCe' },
  evCancDCe: { family: 'dce', file: 'evCancDCe_v1.00.xsd', root: 'evCancDCe' },
  retDCe: { family: 'dce', file: 'retDCe_v1.00.xsd', root: 'retDCe' },
  retEventoDCe: { family: 'dce', file: 'retEventoDCe_v1.00.xsd', root: 'retEventoDCe' },
  procEventoDCe: { family: 'dce', file: 'procEventoDCe_v1.00.xsd', root: 'procEventoDCe' },
  consSitDCe: { family: 'dce', file: 'consSitDCe_v1.00.xsd', root: 'consSitDCe' },
  retConsSitDCe: { family: 'dce', file: 'retConsSitDCe_v1.00.xsd', root: 'retConsSitDCe' },
  consStatServDCe: { family: 'dce', file: 'consStatServDCe_v1.00.xsd', root: 'consStatServDCe' },
  retConsStatServDCe: { family: 'dce', file: 'retConsStatServDCe_v1.00.xsd', root: 'retConsStatServDCe' },
} as const satisfies Record<string, SchemaEntry>;

/**
 * Documents we validate:
 * - `nfe` (NFe, NF-e and NFC-e alike), `enviNFe`, `procNFe` (nfeProc), `consReciNFe`, `consSitNFe`,
 *   `consStatServ`, `inutNFe`, `procInutNFe`, and the responses `retEnviNFe`, `retConsReciNFe`,
 *   `retConsSitNFe`, `retConsStatServ`, `retInutNFe`;
 * - events: `envEvento-<type>` and `procEventoNFe-<type>` for `cancelamento` (110111), `cancSubst`
 *   (110112), `cce` (110110), `manifestacao` (210200/210210/210220/210240), `epec` (110140), plus the
 *   response `retEnvEvento`;
 * - CT-e 4.00: `cte` (CTe) and `cteModalRodoviario` (the rodo group of infModal); the web services'
 *   `consSitCTe`, `consStatServCTe`, `eventoCTe` with the event groups `evCancCTe` and `evCCeCTe`, the answers
 *   `retCTe`, `retConsSitCTe`, `retConsStatServCTe`, `retEventoCTe`, and `procCTe` (cteProc), `procEventoCTe`;
 * - national NFS-e 1.01: `dps` (DPS) and `nfse` (NFSe), `nfse-evento` (pedRegEvento, the request of an
 *   event) and `nfse-evento-registrado` (evento, the event as the national environment registered it);
 * - DC-e 1.00: `dce` (DCe), `dceProc`, `eventoDCe` with the cancellation group `evCancDCe`, `retDCe`,
 *   `retEventoDCe`, `procEventoDCe`, `consSitDCe`, `retConsSitDCe`, `consStatServDCe`, `retConsStatServDCe`.
 */
export type SchemaName = keyof typeof SCHEMAS;
export const SCHEMA_NAMES = Object.keys(SCHEMAS) as readonly SchemaName[];

// The `package` option names an NF-e package; CT-e has one package in force whichever it is. That is the
// RTC edition of the 4.00 schemas (sped-cte PL_CTe_400_RTC, updated for NT 2026.002): from January 2026 the
// authorities validate CT-e against it (IBSCBS group in imp, alphanumeric CNPJ in TCnpj), and a CT-e without
// the optional RTC groups is still valid under it; the pre-RTC PL_CTe_400 rejects both novelties.
// NFS-e likewise has one schema set in force: 1.01 (official package of 2026-02-09), the RTC edition with
// the optional IBSCBS group. The national environment's Sefin/ADN APIs take DPS of versao 1.00 and 1.01
// alike, and TVerNFSe in 1.01 accepts both values, so 1.01 also validates the notes issued as 1.00; the
// 1.00 set's xmldsig schema pins rsa-sha1, which refuses the rsa-sha256 signature of every returned NFS-e.
const FOLDERS: Record<SchemaPackage, Record<Family, string>> = {
  PL_009: { nfe: 'nfe-pl009', evento: 'nfe-eventos', cte: 'cte-rtc', nfse: 'nfse-1.01', dce: 'dce-1.00' },
  // PL_010 ships its own event schemas (alphanumeric CNPJ in the event types too).
  PL_010: { nfe: 'nfe-pl010', evento: 'nfe-pl010', cte: 'cte-rtc', nfse: 'nfse-1.01', dce: 'dce-1.00' },
};

export interface SchemaOptions {
  package?: SchemaPackage;
  /**
   * `compiled-first` (default): the validator compiled from the same XSDs (xsd-compiled/) answers "valid" on
   * its own; libxml2 judges whatever it finds invalid or does not cover, so errors keep libxml2's words.
   * `libxml2`: libxml2 alone (benchmarks and the differential test's oracle).
   */
  engine?: 'compiled-first' | 'libxml2';
}

export interface SchemaError {
  /** libxml2's message, verbatim apart from the trailing newline. */
  message: string;
  /** 1-based line in the validated document, when libxml2 knows it. */
  line: number | null;
  /** Element path from the root with local names, e.g. `NFe/infNFe/det[2]/prod/NCM` or `.../infNFe/@versao`. */
  field: string | null;
}

export type ValidationResult = { valid: true } | { valid: false; errors: SchemaError[] };

export function isSchemaName(value: string): value is SchemaName {
  return Object.hasOwn(SCHEMAS, value);
}

/** The folder, root file and root element of `schema` under `options.package` (read by xsd-compiled/). */
export function schemaTarget(
  schema: SchemaName,
  options: SchemaOptions = {},
): { folder: string; file: string; namespace: string; root: string } {
  const entry: SchemaEntry = SCHEMAS[schema];
  const folder = FOLDERS[options.package ?? DEFAULT_SCHEMA_PACKAGE][entry.family];
  return { folder, file: entry.file, namespace: namespaceOf(entry.family), root: entry.root };
}

/** Absolute path of the root .xsd used for `schema` (handy for cross-checks with xmllint). */
export function schemaPath(schema: SchemaName, options: SchemaOptions = {}): string {
  const entry: SchemaEntry = SCHEMAS[schema];
  return resourcePath('xsd', FOLDERS[options.package ?? DEFAULT_SCHEMA_PACKAGE][entry.family], entry.file);
}

// ---------------------------------------------------------------------------------------------------------
// Schema files reach libxml2 through an input provider: the WebAssembly build has no file system of its own,
// so xs:include/xs:import (resolved by libxml2 against the root file's URL) would find nothing. The provider
// only answers for files under resources/xsd, so it never widens what a parsed document could load.

const xsdRoot = path.resolve(resourcePath('xsd'));
let providerRegistered = false;

function localXsdFile(filename: string): string | null {
  let file: string;
  try {
    file = filename.startsWith('file:') ? fileURLToPath(filename) : path.resolve(filename);
  } catch {
    return null;
  }
  return file.startsWith(xsdRoot + path.sep) && file.endsWith('.xsd') ? file : null;
}

function registerXsdProvider(): void {
  if (providerRegistered) return;
  const open = new Map<number, { bytes: Buffer; offset: number }>();
  let nextHandle = 1; // 0 means "open failed" to libxml2-wasm
  const ok = xmlRegisterInputProvider({
    match: (filename) => localXsdFile(filename) !== null,
    open(filename) {
      const file = localXsdFile(filename);
      if (file === null) return undefined;
      try {
        const handle = nextHandle++;
        open.set(handle, { bytes: fs.readFileSync(file), offset: 0 });
        return handle;
      } catch {
        return undefined;
      }
    },
    read(handle, buf) {
      const entry = open.get(handle);
      if (!entry) return -1;
      const n = entry.bytes.copy(buf, 0, entry.offset);
      entry.offset += n;
      return n;
    },
    close(handle) {
      return open.delete(handle);
    },
  });
  if (!ok) throw new Error('libxml2 input callback table is full: cannot load the XSD files');
  providerRegistered = true;
}

// ---------------------------------------------------------------------------------------------------------
// Compiled validators, one per root .xsd file, compiled on first use and kept for the life of the process.
// A validator is reusable: every validate() call gets its own libxml2 validation context.

interface Compiled {
  validator: XsdValidator;
  // Kept alive with the validator: libxml2 built the schema from this tree, and disposing it early would
  // rely on an implementation detail (it is a few hundred bytes; the included files are owned by libxml2).
  schemaDoc: XmlDocument;
}

const compiled = new Map<string, Compiled>();

function compile(file: string): Compiled {
  registerXsdProvider();
  const schemaDoc = XmlDocument.fromBuffer(fs.readFileSync(file), { url: pathToFileURL(file).href });
  try {
    return { validator: XsdValidator.fromDoc(schemaDoc), schemaDoc };
  } catch (error) {
    schemaDoc.dispose();
    const details = error instanceof XmlLibError ? error.details.map((d) => d.message.trim()).join('; ') : '';
    throw new Error(`cannot compile ${file}${details ? `: ${details}` : ''}`, { cause: error });
  }
}

function validatorFor(schema: SchemaName, options: SchemaOptions): XsdValidator {
  const file = schemaPath(schema, options);
  let entry = compiled.get(file);
  if (!entry) {
    entry = compile(file);
    compiled.set(file, entry);
  }
  return entry.validator;
}

/** Compiles the validators now (e.g. at start-up) instead of on the first document. */
export function preloadSchemas(
  schemas: readonly SchemaName[] = SCHEMA_NAMES,
  options: SchemaOptions = {},
): void {
  for (const schema of schemas) validatorFor(schema, options);
}

/** Frees every compiled validator (tests, shutdown); the next validation compiles again. */
export function clearSchemaCache(): void {
  for (const entry of compiled.values()) {
    entry.validator.dispose();
    entry.schemaDoc.dispose();
  }
  compiled.clear();
}

// ---------------------------------------------------------------------------------------------------------

// No network (there is none in WebAssembly anyway) and no external entities: documents come from clients.
// BIG_LINES keeps line numbers right past line 65535.
const PARSE_OPTIONS =
  ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE | ParseOption.XML_PARSE_BIG_LINES;

function parse(xml: string | Uint8Array): XmlDocument {
  // A JS string is always turned into UTF-8 bytes, so tell libxml2 to ignore any other declared encoding
  // (NF-e are UTF-8 by the Manual anyway); raw bytes are decoded as their declaration says.
  return typeof xml === 'string'
    ? XmlDocument.fromString(xml, { option: PARSE_OPTIONS, encoding: 'utf-8' })
    : XmlDocument.fromBuffer(xml, { option: PARSE_OPTIONS });
}

/**
 * Validates `xml` against the official schema `schema` and reports every libxml2 message.
 * Malformed XML, a DOCTYPE and a wrong root element are reported the same way (valid: false).
 * Throws only for problems of our own: a schema file missing or not compiling.
 */
export function validateXml(
  xml: string | Uint8Array,
  schema: SchemaName,
  options: SchemaOptions = {},
): ValidationResult {
  // The compiled check is a one-pass walk over the text, several times cheaper than libxml2's parse and
  // validation; it only ever answers "valid" for a document it checked completely.
  if (typeof xml === 'string' && options.engine !== 'libxml2' && validateCompiled(xml, schema, options).ok) {
    return { valid: true };
  }
  const validator = validatorFor(schema, options);
  let doc: XmlDocument;
  try {
    doc = parse(xml);
  } catch (error) {
    if (error instanceof XmlLibError) return { valid: false, errors: toErrors(error.details, null) };
    throw error;
  }
  try {
    // NF-e documents never carry a DTD, and entity references left in the tree make libxml2's validator
    // fail with an internal error instead of a finding: refuse them up front.
    if (doc.dtd !== null) {
      return {
        valid: false,
        errors: [
          { message: 'DOCTYPE declarations are not allowed in fiscal documents.', line: null, field: null },
        ],
      };
    }
    const entry: SchemaEntry = SCHEMAS[schema];
    const expected = entry.root;
    const namespace = namespaceOf(entry.family);
    const root = doc.root;
    // Needed: every schema also declares the global ds:Signature (xmldsig import), so a bare <Signature>
    // document would otherwise pass as an NFe.
    if (root.name !== expected || root.namespaceUri !== namespace) {
      const found = root.namespaceUri ? `{${root.namespaceUri}}${root.name}` : root.name;
      return {
        valid: false,
        errors: [
          {
            message: `Root element '${found}' is not the expected '{${namespace}}${expected}' of schema '${schema}'.`,
            line: root.line > 0 ? root.line : null,
            field: root.name,
          },
        ],
      };
    }
    try {
      validator.validate(doc);
      return { valid: true };
    } catch (error) {
      if (error instanceof XmlValidateError) return { valid: false, errors: toErrors(error.details, doc) };
      // libxml2 gave up on this input (its return code < 0): the document is still not a valid one.
      if (error instanceof XmlError) {
        return {
          valid: false,
          errors: [{ message: `libxml2 could not validate: ${error.message}`, line: null, field: null }],
        };
      }
      throw error;
    }
  } finally {
    doc.dispose();
  }
}

function toErrors(details: readonly ErrorDetail[], doc: XmlDocument | null): SchemaError[] {
  const errors = details
    .filter((d) => d.level >= 2) // 1 = warning; only errors make a document invalid
    .map((d) => ({
      message: d.message.trimEnd(),
      line: d.line > 0 ? d.line : null,
      field: fieldOf(d, doc),
    }));
  // libxml2 reported failure without a message: still say something rather than an empty list.
  return errors.length > 0 ? errors : [{ message: 'document is not valid', line: null, field: null }];
}

// libxml2 hands us xmlGetNodePath() of the node in error, e.g. "/*/*[1]/*[3]/*[1]/*[4]": it writes "*" for
// every element in a default namespace (XPath 1.0 cannot name those). Resolve it in the document and rebuild
// the path with local names; fall back to the name quoted in the message.
function fieldOf(detail: ErrorDetail, doc: XmlDocument | null): string | null {
  if (doc && detail.xpath) {
    try {
      const node = doc.get(withoutPrefixes(detail.xpath));
      const named = node ? namedPath(node) : null;
      if (named) {
        // Attribute errors point at the owner element; the attribute is only named in the message.
        const attribute =
          node instanceof XmlElement ? fieldFromMessage(detail.message)?.split('/@')[1] : undefined;
        return attribute ? `${named}/@${attribute}` : named;
      }
    } catch {
      // not an XPath libxml2 can evaluate back: use the message
    }
  }
  return fieldFromMessage(detail.message);
}

/**
 * xmlGetNodePath writes prefixed names ("n:NCM") whose prefix our XPath context does not know (libxml2 would
 * print "Undefined namespace prefix" on stderr): match those steps by local name instead.
 */
function withoutPrefixes(xpath: string): string {
  return xpath.replace(/(@?)[A-Za-z_][\w.-]*:([A-Za-z_][\w.-]*)/g, "$1*[local-name()='$2']");
}

function namedPath(node: XmlNode): string | null {
  const steps: string[] = [];
  let element: XmlElement | null;
  if (node instanceof XmlAttribute) {
    steps.push(`@${node.name}`);
    element = node.parent;
  } else if (node instanceof XmlElement) {
    element = node;
  } else {
    element = node.parent;
  }
  for (; element; element = element.parent) steps.push(element.name + positionSuffix(element));
  return steps.length > 0 ? steps.reverse().join('/') : null;
}

/** "[n]" when the element has same-named siblings (det[2]), "" otherwise. */
function positionSuffix(element: XmlElement): string {
  // Counted by XPath: libxml2-wasm gives a processing instruction no prev/next, so walking the siblings would
  // stop at one and miss the elements beyond it.
  const uri = element.namespaceUri;
  if (!uri.includes("'")) {
    const test = `*[local-name()='${element.name}' and namespace-uri()='${uri}']`;
    const before = element.eval(`count(preceding-sibling::${test})`);
    const after = element.eval(`count(following-sibling::${test})`);
    if (typeof before === 'number' && typeof after === 'number') {
      return before > 0 || after > 0 ? `[${before + 1}]` : '';
    }
  }
  const same = (n: unknown): boolean =>
    n instanceof XmlElement && n.name === element.name && n.namespaceUri === element.namespaceUri;
  let before = 0;
  for (let n = element.prev; n; n = n.prev) if (same(n)) before++;
  let after = false;
  for (let n = element.next; n && !after; n = n.next) after = same(n);
  return before > 0 || after ? `[${before + 1}]` : '';
}

function fieldFromMessage(message: string): string | null {
  const match = /^Element '(?:\{[^}]*\})?([^']+)'(?:, attribute '(?:\{[^}]*\})?([^']+)')?/.exec(message);
  if (!match?.[1]) return null;
  return match[2] ? `${match[1]}/@${match[2]}` : match[1];
}

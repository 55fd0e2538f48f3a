// Turns a creation payload in either spelling (A camelCase, B snake_case) into the internal NfeModel,
// collecting every fault with its path in the caller's own spelling (e.g. `itens[2].valor_unitario`).
import type { z } from 'zod';
import { formatFieldPath, type ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import type { PayloadLookup } from '../lookup.ts';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import {
  customerPayloadSchema,
  nfePayloadSchema,
  type CustomerPayload,
  type ItemPayload,
  type NfePayload,
} from '../../../src-shared/contracts/nfe-payload.ts';
import { CARD_TPAG, resolveTPag } from '../../../src-shared/tables/payment-methods.ts';
import {
  callerFieldNamer,
  renameToSpellingA,
  type FieldNamer,
} from '../../../src-shared/contracts/spelling.ts';
import { isUf, type UfSigla } from '../../../src-shared/uf.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../../../src-shared/tax-ids.ts';
import { isValidAccessKey } from '../access-key.ts';
import { cobrFromPayload, impostoDevolFaults, transpFromPayload } from './cobr-transp.ts';
import { emitterIeFault, isentoRecipientFault, recipientIeFault } from './registration.ts';
import { findMunicipio, findMunicipioByName, type Municipio } from '../../reference/ibge.ts';
import { NCM_REJECTION, ncmFault, shippedNcmTable, type NcmTable } from '../../reference/ncm.ts';
import type { IbptLookup } from '../../ibpt/table.ts';
import { formatScaled, parseScaled, SCALE } from '../../../src-shared/money.ts';
import { normalizeFreeText } from '../xml.ts';
import { idDestOf } from './ide.ts';
import { checkCfops, checkNfceFreight, checkRespTec } from './operation.ts';
import type { DestModel, DetPagModel, EmitModel, ItemModel, Modelo, NfeModel, TpAmb } from './model.ts';

/** Spelling-B names that are not a plain snake_case → camelCase rename. */
const ALIASES: Readonly<Record<string, string>> = {
  destinatario: 'customer',
  cliente: 'customer',
  metodo: 'forma',
  forma_pagamento: 'forma',
  razao_social: 'nome',
  ind_ie_dest: 'indIEDest',
  cpf_consumidor: 'cpfConsumidor',
  customer_id: 'customerId',
  a_prazo: 'aPrazo',
  inscricao_estadual: 'ie',
  meio_pagamento: 'forma',
};

const snakeToCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
// A body's keys come from a small vocabulary (codigo, valor_unitario...), renamed once each and remembered; the
// memory is bounded, so a caller sending ever new keys only stops being remembered.
const renamedKeys = new Map<string, string>();
const nfeKeyA = (key: string): string => {
  const known = renamedKeys.get(key);
  if (known !== undefined) return known;
  // Own keys only: a body's `constructor` or `toString` must not find Object.prototype's functions here.
  const renamed = Object.hasOwn(ALIASES, key)
    ? (ALIASES[key] ?? key)
    : key.includes('_')
      ? snakeToCamel(key)
      : key;
  if (renamedKeys.size < 4096) renamedKeys.set(key, renamed);
  return renamed;
};

/** Renames keys to spelling A (snake_case → camelCase, plus the aliases above). */
export function toSpellingA(node: unknown): unknown {
  return renameToSpellingA(node, nfeKeyA);
}

export interface NormalizeContext {
  modelo: Modelo;
  emit: EmitModel;
  tpAmb: TpAmb;
  serie: number;
  nNF: number;
  cNF: string;
  dhEmi: Date;
  tpEmis: NfeModel['tpEmis'];
  contingency: NfeModel['contingency'];
  verProc: string;
  ibsCbsRates: NfeModel['ibsCbsRates'];
  infRespTec: NfeModel['infRespTec'];
  lookup: PayloadLookup;
  /** The NCM table in use (rule 778); the shipped one when not given. */
  ncmTable?: NcmTable;
  /** The company's IBPT table (Lei 12.741/2012), when it imported one. */
  ibpt?: IbptLookup;
  /** Paid PIX charges the payments name by `pixTxid` (pix/sale.ts checked them): PSP CNPJ and endToEndId. */
  pixCharges?: ReadonlyMap<string, { cnpj: string | null; endToEndId: string }>;
}

/** A rule of the authority the payload breaks, caught before signing: its cStat and text (§7). */
export interface RuleRejection {
  cStat: string;
  xMotivo: string;
}

export type NormalizeResult =
  | { ok: true; model: NfeModel; payload: NfePayload }
  /** `rejection` when every fault is a rule SEFAZ would reject the note for (a 422, not a malformed request). */
  | { ok: false; errors: ErrorDetail[]; rejection?: RuleRejection };

/** Whether the caller writes spelling B (snake_case, or its own names), so faults are named its way. */
export function writesSpellingB(input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  return Object.keys(input).some((k) => k.includes('_') || k === 'destinatario' || k === 'pagamento');
}

class Problems {
  private readonly found: { path: PropertyKey[]; error: string; rule?: RuleRejection }[] = [];
  readonly spellingB: boolean;
  /** camelCase path → the caller's own path (walked only when there are errors to report). */
  private readonly original: FieldNamer;
  constructor(input: unknown, spellingB = writesSpellingB(input)) {
    this.spellingB = spellingB;
    this.original = callerFieldNamer(input, nfeKeyA, spellingB);
  }
  add(path: PropertyKey[], error: string): void {
    // The first, most precise complaint about a field wins (a format fault, then its absence).
    const key = formatFieldPath(path);
    if (this.found.some((f) => formatFieldPath(f.path) === key)) return;
    this.found.push({ path, error });
  }
  /** A fault that is one of the authority's rules, reported with its cStat. */
  rule(path: PropertyKey[], error: string, rule: RuleRejection): void {
    const before = this.found.length;
    this.add(path, error);
    const added = this.found[before];
    if (added !== undefined) added.rule = rule;
  }
  get empty(): boolean {
    return this.found.length === 0;
  }
  /** The rule broken when every fault is a rule of the authority; undefined when the request is malformed. */
  get rejection(): RuleRejection | undefined {
    const [first] = this.found;
    return first !== undefined && this.found.every((f) => f.rule !== undefined) ? first.rule : undefined;
  }
  failure(): { ok: false; errors: ErrorDetail[]; rejection?: RuleRejection } {
    const rejection = this.rejection;
    return { ok: false, errors: this.list, ...(rejection === undefined ? {} : { rejection }) };
  }
  get list(): ErrorDetail[] {
    return this.found.map(({ path, error }) => ({ field: this.original(path), error }));
  }
}

type Json = Record<string, unknown>;

/** Removes what `path` points at, so a later pass can read the rest of the payload. */
function dropAt(root: unknown, path: readonly PropertyKey[]): void {
  if (path.length === 0) return;
  let node: unknown = root;
  for (const part of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    node = (node as Json)[part as string];
  }
  if (typeof node !== 'object' || node === null) return;
  const last = path[path.length - 1] as string | number;
  // An array element is emptied rather than removed, so the indexes of its siblings stay the caller's.
  if (Array.isArray(node)) node[last as number] = {};
  else delete (node as Json)[last];
}

/**
 * Parses with the payload schema, reporting every type or format fault, and keeps going without the faulty
 * fields so that the checks after it (required fields, recipient, payments, the IBGE city) report their
 * faults in the same answer: a caller fixes everything in one round trip. Presence is checked after the
 * schema, not by it, for the same reason.
 */
function parseLeniently<S extends z.ZodType>(
  schema: S,
  input: unknown,
  problems: Problems,
  base: PropertyKey[] = [],
): z.output<S> | undefined {
  // safeParse leaves its input alone: the copy that faulty fields are dropped from is made only once a
  // parse fails, so a valid body (every sale) is parsed once and never cloned.
  let working: unknown = input;
  for (let pass = 0; pass < 8; pass++) {
    const parsed = schema.safeParse(working);
    if (parsed.success) return parsed.data;
    if (pass === 0) working = structuredClone(input);
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          problems.add([...base, ...issue.path, key], 'unknown field');
          dropAt(working, [...issue.path, key]);
        }
        continue;
      }
      problems.add([...base, ...issue.path], issue.message);
      if (issue.path.length === 0) return undefined;
      dropAt(working, issue.path);
    }
  }
  return undefined;
}

function destFromCustomerView(c: CustomerView): DestModel {
  // Saved before its free text was cleaned, a customer may hold characters XML cannot carry.
  const dest: DestModel = { indIEDest: c.indIEDest as 1 | 2 | 9, xNome: normalizeFreeText(c.xNome, 60) };
  if (c.cpf !== null) dest.CPF = c.cpf;
  if (c.cnpj !== null) dest.CNPJ = c.cnpj;
  if (c.idEstrangeiro !== null) dest.idEstrangeiro = c.idEstrangeiro;
  if (c.ie !== null && c.ie !== 'ISENTO' && c.indIEDest === 1) dest.IE = c.ie;
  if (c.email !== null) dest.email = c.email;
  const e = c.endereco;
  if (
    e !== null &&
    e.xLgr !== null &&
    e.nro !== null &&
    e.xBairro !== null &&
    e.cMun !== null &&
    e.uf !== null &&
    isUf(e.uf)
  ) {
    dest.enderDest = {
      xLgr: normalizeFreeText(e.xLgr, 60),
      nro: normalizeFreeText(e.nro, 60),
      xCpl: e.xCpl === null ? null : normalizeFreeText(e.xCpl, 60) || null,
      xBairro: normalizeFreeText(e.xBairro, 60),
      cMun: e.cMun,
      xMun: normalizeFreeText(e.xMun ?? findMunicipio(e.cMun)?.xMun ?? '', 60),
      UF: e.uf,
      CEP: e.cep,
      fone: null,
    };
  }
  return dest;
}

/** The recipient's tax id from `cpfCnpj` (told apart by length: 11 CPF, 14 CNPJ) or `cpf`/`cnpj`. */
function taxIdOf(
  c: CustomerPayload,
  problems: Problems,
): Pick<DestModel, 'CPF' | 'CNPJ' | 'idEstrangeiro'> | null {
  const given = [c.cpfCnpj, c.cpf, c.cnpj, c.idEstrangeiro].filter((v) => v !== undefined).length;
  if (given !== 1) {
    problems.add(
      ['customer', 'cpfCnpj'],
      given === 0
        ? 'required: the CPF or CNPJ of the recipient'
        : 'give only one of cpfCnpj, cpf, cnpj or idEstrangeiro',
    );
    return null;
  }
  if (c.cpf !== undefined) return { CPF: c.cpf };
  if (c.cnpj !== undefined) return { CNPJ: c.cnpj };
  if (c.idEstrangeiro !== undefined) return { idEstrangeiro: c.idEstrangeiro };
  const raw = c.cpfCnpj ?? '';
  // Told apart by the characters written, punctuation aside: an alphanumeric CNPJ with three letters has
  // eleven digits, so counting digits alone would take it for a CPF.
  const written = raw.replace(/[.\-/\s]/g, '');
  if (/^\d{11}$/.test(written)) {
    const cpf = normalizeCpf(written);
    if (isValidCpf(cpf)) return { CPF: cpf };
    problems.add(['customer', 'cpfCnpj'], 'invalid CPF (check digits)');
    return null;
  }
  if (written.length === 14) {
    const cnpj = normalizeCnpj(written);
    if (isValidCnpj(cnpj)) return { CNPJ: cnpj };
    problems.add(['customer', 'cpfCnpj'], 'invalid CNPJ (check digits or format)');
    return null;
  }
  problems.add(['customer', 'cpfCnpj'], 'must be a CPF (11 digits) or a CNPJ (14 characters)');
  return null;
}

type AddressField =
  | 'logradouro'
  | 'numero'
  | 'complemento'
  | 'bairro'
  | 'codigoMunicipio'
  | 'municipio'
  | 'uf'
  | 'cep'
  | 'telefone';
/** Each address field as spelling A (§2.2), spelling B and the layout (TEndereco) name it. */
const ADDRESS_SPELLINGS: Record<AddressField, { a: string; b: string; layout: string }> = {
  logradouro: { a: 'logradouro', b: 'logradouro', layout: 'xLgr' },
  numero: { a: 'numero', b: 'numero', layout: 'nro' },
  complemento: { a: 'complemento', b: 'complemento', layout: 'xCpl' },
  bairro: { a: 'bairro', b: 'bairro', layout: 'xBairro' },
  codigoMunicipio: { a: 'codigoMunicipio', b: 'codigoMunicipio', layout: 'cMun' },
  municipio: { a: 'xMun', b: 'municipio', layout: 'xMun' },
  uf: { a: 'UF', b: 'uf', layout: 'uf' },
  cep: { a: 'CEP', b: 'cep', layout: 'cep' },
  telefone: { a: 'telefone', b: 'telefone', layout: 'fone' },
};

/**
 * The recipient's address (enderDest) from the payload, wherever the caller drew it (`endereco`, or spelling
 * B's fields beside the tax id). Without an IBGE code the city is found by name and UF. Every missing or
 * unknown sub-field is reported on its own path, in the caller's spelling.
 */
function addressOf(
  c: CustomerPayload,
  problems: Problems,
  required: boolean,
): DestModel['enderDest'] | undefined {
  const nested = c.endereco as Record<string, string | undefined> | undefined;
  const inline = c as Record<string, unknown>;
  const hasInline = ['logradouro', 'numero', 'bairro', 'municipio', 'codigoMunicipio', 'cep'].some(
    (k) => inline[k] !== undefined,
  );
  if (nested === undefined && !hasInline) {
    if (required) problems.add(['customer', 'endereco'], 'required for an NF-e recipient');
    return undefined;
  }
  const base: PropertyKey[] = nested === undefined ? ['customer'] : ['customer', 'endereco'];
  const source: Record<string, unknown> = nested ?? inline;
  const layoutSpelling =
    nested !== undefined && ['xLgr', 'nro', 'xBairro', 'cMun'].some((k) => nested[k] !== undefined);
  const pick = (field: AddressField): { value: string | undefined; path: PropertyKey[] } => {
    const names = ADDRESS_SPELLINGS[field];
    for (const name of [names.a, names.b, names.layout]) {
      const raw = source[name];
      // Free text like every other (xml.ts): control characters and lone surrogates cannot be signed.
      const value = typeof raw === 'string' ? normalizeFreeText(raw, 60) : '';
      if (value !== '') return { value, path: [...base, name] };
    }
    // A missing field is named the way the caller writes the others.
    const name = layoutSpelling ? names.layout : problems.spellingB ? names.b : names.a;
    return { value: undefined, path: [...base, name] };
  };
  const need = (field: AddressField) => {
    const found = pick(field);
    if (found.value === undefined) problems.add(found.path, 'required');
    return found.value;
  };
  const xLgr = need('logradouro');
  const nro = need('numero');
  const xBairro = need('bairro');
  const xCpl = pick('complemento').value ?? null;
  const ufField = pick('uf');
  // Spelling B may give the state once, beside the tax id, and not inside `endereco`.
  const ufValue = (ufField.value ?? (nested !== undefined ? c.uf : undefined))?.toUpperCase();
  const ufPath = ufField.value === undefined && c.uf !== undefined ? ['customer', 'uf'] : ufField.path;
  let uf: UfSigla | undefined;
  if (ufValue === undefined) problems.add(ufPath, 'required');
  else if (!isUf(ufValue)) problems.add(ufPath, 'unknown UF');
  else uf = ufValue;
  const cMunField = pick('codigoMunicipio');
  const xMunField = pick('municipio');
  let municipio: Municipio | undefined;
  if (cMunField.value !== undefined) {
    municipio = findMunicipio(cMunField.value);
    if (municipio === undefined) problems.add(cMunField.path, 'unknown IBGE municipality code');
    else if (uf !== undefined && municipio.uf !== uf) {
      problems.add(cMunField.path, `municipality code is not in UF ${uf}`);
      municipio = undefined;
    }
  } else if (xMunField.value === undefined) {
    problems.add(xMunField.path, 'required: the city (or its 7-digit IBGE code)');
  } else if (uf !== undefined) {
    const lookup = findMunicipioByName(xMunField.value, uf);
    if (lookup.found !== undefined) municipio = lookup.found;
    else if (lookup.reason === 'ambiguous')
      problems.add(xMunField.path, `ambiguous city in ${uf}: give the IBGE code (codigoMunicipio)`);
    else problems.add(xMunField.path, `no city named '${xMunField.value}' in ${uf} (IBGE table)`);
  }
  const cepField = pick('cep');
  const cep = cepField.value?.replace(/\D/g, '');
  if (cep !== undefined && !/^\d{8}$/.test(cep)) problems.add(cepField.path, 'must have 8 digits');
  const telefone = (pick('telefone').value ?? c.telefone)?.replace(/\D/g, '');
  if (telefone !== undefined && !/^\d{6,14}$/.test(telefone))
    problems.add(
      c.telefone !== undefined ? ['customer', 'telefone'] : pick('telefone').path,
      'must have 6 to 14 digits',
    );
  if (
    xLgr === undefined ||
    nro === undefined ||
    xBairro === undefined ||
    municipio === undefined ||
    uf === undefined
  )
    return undefined;
  return {
    xLgr,
    nro,
    xCpl,
    xBairro,
    cMun: municipio.cMun,
    // The IBGE name is the one SEFAZ knows; a caller's own spelling of it is kept only when it gave the code.
    xMun: cMunField.value !== undefined && xMunField.value !== undefined ? xMunField.value : municipio.xMun,
    UF: uf,
    CEP: cep ?? null,
    fone: telefone ?? null,
  };
}

function destFromPayload(
  c: CustomerPayload,
  problems: Problems,
  modelo: Modelo,
  requireAddress = modelo === 55,
): DestModel | null {
  const taxId = taxIdOf(c, problems);
  const ie = c.ie?.replace(/[.\-/\s]/g, '').toUpperCase();
  const cnpjGiven = taxId?.CNPJ !== undefined;
  const indIEDest =
    c.indIEDest ?? (cnpjGiven && ie !== undefined && ie !== '' ? (ie === 'ISENTO' ? 2 : 1) : 9);
  const dest: DestModel = { indIEDest, ...taxId };
  if (c.nome !== undefined) dest.xNome = normalizeFreeText(c.nome, 60);
  else if (modelo === 55) problems.add(['customer', 'nome'], 'required for an NF-e recipient');
  if (indIEDest === 1) {
    if (ie === undefined || !/^\d{2,14}$/.test(ie))
      problems.add(['customer', 'ie'], 'indIEDest 1 requires the IE (digits)');
    else dest.IE = ie;
  }
  if (c.email !== undefined) dest.email = c.email;
  const enderDest = addressOf(c, problems, requireAddress);
  if (enderDest !== undefined) dest.enderDest = enderDest;
  const ieFault =
    modelo === 55 && dest.IE !== undefined && enderDest ? recipientIeFault(enderDest.UF, dest.IE) : null;
  if (ieFault !== null) problems.rule(['customer', 'ie'], ieFault.error, ieFault.rule);
  return taxId === null ? null : dest;
}

/**
 * The CFOP a fiscal profile gives, moved to the operation at hand (CFOP table, first digit): 5/6/7 for
 * outbound within the state, to another state, abroad; 1/2/3 for the inbound counterparts. A profile holds
 * the in-state outbound code (5102); an explicit CFOP of the item is never changed.
 */
function cfopForOperation(profileCfop: string, tpNF: 0 | 1, interstate: boolean): string {
  const first = profileCfop[0];
  if (first === '3' || first === '7') return profileCfop;
  const digit = tpNF === 1 ? (interstate ? '6' : '5') : interstate ? '2' : '1';
  return `${digit}${profileCfop.slice(1)}`;
}

function resolveItem(
  item: ItemPayload,
  index: number,
  ctx: NormalizeContext,
  problems: Problems,
  detailedMode: boolean,
  operation: { tpNF: 0 | 1; interstate: boolean },
): ItemModel | null {
  const at = (field: string): PropertyKey[] => ['itens', index, field];
  const product = item.productId === undefined ? undefined : ctx.lookup.product(item.productId);
  if (item.productId !== undefined && product === undefined) {
    problems.add(at('productId'), 'no such product in this company');
    return null;
  }
  const profileId = item.fiscalProfileId ?? product?.fiscalProfileId ?? undefined;
  const namedProfile = profileId === undefined ? undefined : ctx.lookup.profile(profileId);
  if (item.fiscalProfileId !== undefined && namedProfile === undefined) {
    problems.add(at('fiscalProfileId'), 'no such fiscal profile in this company');
  }
  // Simple mode (§2.1): an item that names no profile and gives no taxes is taxed by the company's default.
  const profile =
    namedProfile ??
    (profileId === undefined && item.tributacao === undefined ? ctx.lookup.defaultProfile() : undefined);
  const taxes: FiscalTaxes | undefined = item.tributacao ?? profile?.taxes;
  // An NFC-e item without a code takes its position (cProd is required by the layout, §2.3 only for NF-e).
  const cProd = item.codigo ?? product?.cProd ?? (ctx.modelo === 65 ? String(index + 1) : undefined);
  const xProd = item.descricao ?? product?.xProd;
  const NCM = item.ncm ?? product?.NCM;
  const uCom = item.unidade ?? product?.uCom ?? 'UN';
  const vUnCom = item.valorUnitario ?? product?.vUnCom;
  const explicitCfop = item.cfop ?? item.CFOP;
  const CFOP =
    explicitCfop ??
    (profile === undefined
      ? undefined
      : cfopForOperation(profile.CFOP, operation.tpNF, operation.interstate));
  const missing: [string, unknown][] = [
    ['codigo', cProd],
    ['descricao', xProd],
    ['ncm', NCM],
    ['quantidade', item.quantidade],
    ['valorUnitario', vUnCom],
    ['cfop', CFOP],
  ];
  let complete = true;
  for (const [field, value] of missing) {
    if (value === undefined) {
      if (field === 'cfop' && taxes === undefined) continue; // the fiscal profile fault below says it all
      problems.add(at(field), product === undefined ? 'required' : 'required (the product does not give it)');
      complete = false;
    }
  }
  if (taxes === undefined) {
    problems.add(
      at('fiscalProfileId'),
      'required: a fiscal profile (item or product), inline tributacao, or a default fiscal profile of the company',
    );
    complete = false;
  }
  if (detailedMode && item.impostos === undefined) {
    problems.add(at('impostos'), 'every item needs impostos when one item gives them (detailed mode)');
  }
  const ncmProblem = NCM === undefined ? undefined : ncmFault(NCM, ctx.ncmTable ?? shippedNcmTable());
  // MOC 7.0 I05 rule 778: an NCM the table does not have (the message names the table and how to update it).
  if (ncmProblem !== undefined) problems.rule(at('ncm'), ncmProblem, { ...NCM_REJECTION });
  if (!complete || taxes === undefined) return null;
  const usesCsosn = taxes.ICMS.CSOSN !== undefined;
  const simples = ctx.emit.CRT === 1 || ctx.emit.CRT === 4;
  if (usesCsosn !== simples) {
    problems.add(
      at('fiscalProfileId'),
      simples
        ? 'a Simples Nacional emitter (CRT 1/4) uses CSOSN'
        : 'a regime normal emitter (CRT 2/3) uses CST',
    );
  }
  if (ctx.modelo === 65 && taxes.IPI !== undefined) {
    problems.add(at('fiscalProfileId'), 'NFC-e items have no IPI group');
  }
  const gtin = item.gtin ?? product?.cEAN ?? null;
  if (gtin !== null && gtin !== 'SEM GTIN' && !/^(\d{8}|\d{12,14})$/.test(gtin))
    problems.add(at('gtin'), 'must be a GTIN-8/12/13/14');
  return {
    cProd: normalizeFreeText(cProd as string, 60),
    cEAN: gtin ?? 'SEM GTIN',
    xProd: normalizeFreeText(xProd as string, 120),
    NCM: NCM as string,
    CEST: item.cest ?? product?.CEST ?? null,
    CFOP: CFOP as string,
    uCom: normalizeFreeText(uCom, 6),
    qCom: item.quantidade as string,
    vUnCom: vUnCom as string,
    vDesc: item.valorDesconto ?? null,
    vFrete: item.valorFrete ?? null,
    vSeg: item.valorSeguro ?? null,
    vOutro: item.valorOutros ?? null,
    ...withIbptRates(taxes, item.impostos?.vTotTrib, NCM as string, ctx.ibpt),
    detailed: item.impostos ?? null,
    infAdProd:
      item.informacoesAdicionais === undefined ? null : normalizeFreeText(item.informacoesAdicionais, 500),
    impostoDevol: item.impostoDevol ?? null,
  };
}

/** Origins of imported goods (orig 1, 2, 6, 7): the IBPT's importadosfederal rate applies to them. */
const IMPORTED_ORIG = new Set([1, 2, 6, 7]);

/**
 * Lei 12.741/2012: an item whose profile gives no pTotTrib and whose caller gave no vTotTrib takes the
 * company's IBPT rates for its NCM (federal by origin + estadual + municipal) as its pTotTrib, and keeps the
 * three rates for the tributos line of infCpl (notices.ts).
 */
function withIbptRates(
  taxes: FiscalTaxes,
  givenVTotTrib: string | undefined,
  ncm: string,
  ibpt: IbptLookup | undefined,
): { taxes: FiscalTaxes; ibpt?: NonNullable<ItemModel['ibpt']> } {
  if (ibpt === undefined || taxes.pTotTrib !== undefined || givenVTotTrib !== undefined) return { taxes };
  const rates = ibpt.rates(ncm, null);
  if (rates === undefined) return { taxes };
  const federal = IMPORTED_ORIG.has(taxes.ICMS.orig) ? rates.importadosfederal : rates.nacionalfederal;
  const total = [federal, rates.estadual, rates.municipal].reduce(
    (acc, r) => acc + parseScaled(r, SCALE.rate),
    0n,
  );
  return {
    taxes: { ...taxes, pTotTrib: formatScaled(total, SCALE.rate) },
    ibpt: { federal, estadual: rates.estadual, municipal: rates.municipal, chave: ibpt.chave },
  };
}

function resolvePayments(
  payload: NfePayload,
  modelo: Modelo,
  problems: Problems,
  pixCharges: NormalizeContext['pixCharges'],
): DetPagModel[] {
  if (payload.pagamentos !== undefined && payload.pagamento !== undefined) {
    problems.add(['pagamento'], 'give either pagamentos (a list) or pagamento (one payment), not both');
    return [];
  }
  // Spelling B's one payment object is a list of one; its faults are reported under its own name.
  const list = payload.pagamento === undefined ? payload.pagamentos : [payload.pagamento];
  const at = (i: number, field: string): PropertyKey[] =>
    payload.pagamento === undefined ? ['pagamentos', i, field] : ['pagamento', field];
  if (list === undefined || list.length === 0) {
    if (modelo === 55 && (payload.finalidade === 3 || payload.finalidade === 4)) {
      // MOC 7.0 YA02: notes of ajuste and devolução carry tPag 90 "sem pagamento".
      return [{ tPag: '90', xPag: null, vPag: '0.00', indPag: null, card: null }];
    }
    problems.add(
      [problems.spellingB ? 'pagamento' : 'pagamentos'],
      problems.spellingB ? 'required: the payment {metodo, valor}' : 'at least one payment is required',
    );
    return [];
  }
  return list.map((p, i) => {
    const tPag = p.forma === undefined ? undefined : resolveTPag(p.forma);
    if (p.forma === undefined) problems.add(at(i, 'forma'), 'required: a tPag code or a name such as pix');
    else if (tPag === undefined) problems.add(at(i, 'forma'), `unknown payment method '${p.forma}'`);
    if (p.valor === undefined) problems.add(at(i, 'valor'), 'required');
    if (tPag === '99' && p.descricao === undefined)
      problems.add(at(i, 'descricao'), 'required for forma 99 (outros)');
    const needsCard = tPag !== undefined && CARD_TPAG.has(tPag);
    const card = p.cartao ?? (needsCard ? { integrado: false } : undefined);
    if (p.pixTxid !== undefined) {
      // Dynamic PIX settled by the store's PSP: integrated payment, the PSP's CNPJ and the endToEndId.
      const settled = pixCharges?.get(p.pixTxid);
      if (settled === undefined) problems.add(at(i, 'pixTxid'), 'no paid PIX charge with this txid');
      if (tPag !== undefined && tPag !== '17')
        problems.add(at(i, 'forma'), 'a payment with pix_txid is forma 17');
      return {
        tPag: '17',
        xPag: p.descricao === undefined ? null : normalizeFreeText(p.descricao, 60),
        vPag: p.valor ?? '0.00',
        indPag: p.aPrazo === undefined ? null : p.aPrazo ? 1 : 0,
        card: { tpIntegra: 1, CNPJ: settled?.cnpj ?? null, tBand: null, cAut: settled?.endToEndId ?? null },
      };
    }
    return {
      tPag: tPag ?? '99',
      xPag: p.descricao === undefined ? null : normalizeFreeText(p.descricao, 60),
      vPag: p.valor ?? '0.00',
      indPag: p.aPrazo === undefined ? null : p.aPrazo ? 1 : 0,
      card:
        card === undefined
          ? null
          : {
              tpIntegra: card.integrado ? 1 : 2,
              CNPJ: card.cnpjCredenciadora ?? null,
              tBand: card.bandeira ?? null,
              cAut: card.autorizacao ?? null,
            },
    };
  });
}

/** §2.6: an NFC-e without a natureza de operação is a sale to the consumer. */
const NFCE_DEFAULT_NAT_OP = 'VENDA AO CONSUMIDOR';

export function normalizeNfe(raw: unknown, ctx: NormalizeContext): NormalizeResult {
  const problems = new Problems(raw);
  const payload = parseLeniently(nfePayloadSchema, toSpellingA(raw), problems);
  if (payload === undefined) return problems.failure();
  const emitFault = emitterIeFault(ctx.emit);
  if (emitFault !== null) problems.rule(['company', 'ie'], emitFault.error, emitFault.rule);
  if (payload.modelo !== undefined && payload.modelo !== ctx.modelo) {
    problems.add(['modelo'], `this endpoint issues model ${ctx.modelo}`);
  }
  // §2.6: spelling A defaults it for an NFC-e; spelling B lists natureza_operacao as required for both.
  const naturezaOperacao =
    payload.naturezaOperacao ?? (ctx.modelo === 65 && !problems.spellingB ? NFCE_DEFAULT_NAT_OP : undefined);
  if (naturezaOperacao === undefined)
    problems.add(['naturezaOperacao'], ctx.modelo === 55 ? 'required for an NF-e' : 'required (spelling B)');

  // dest: exactly one of customerId, customer/destinatario, cpfConsumidor.
  const destSources = [payload.customerId, payload.customer, payload.cpfConsumidor].filter(
    (v) => v !== undefined,
  ).length;
  let dest: DestModel | null = null;
  if (destSources > 1) {
    problems.add(['customer'], 'give only one of customerId, customer/destinatario or cpfConsumidor');
  } else if (payload.customerId !== undefined) {
    const found = ctx.lookup.customer(payload.customerId);
    if (found === undefined) problems.add(['customerId'], 'no such customer in this company');
    else {
      dest = destFromCustomerView(found);
      if (ctx.modelo === 55 && dest.enderDest === undefined)
        problems.add(['customerId'], 'the saved customer has no complete address, required for an NF-e');
      // A customer saved before the IE check may hold one SEFAZ refuses.
      const ieFault =
        ctx.modelo === 55 && dest.IE !== undefined && dest.enderDest !== undefined
          ? recipientIeFault(dest.enderDest.UF, dest.IE)
          : null;
      if (ieFault !== null)
        problems.rule(['customerId'], `the saved customer's ${ieFault.error}`, ieFault.rule);
    }
  } else if (payload.customer !== undefined) {
    dest = destFromPayload(payload.customer, problems, ctx.modelo);
  } else if (payload.cpfConsumidor !== undefined) {
    dest = { CPF: payload.cpfConsumidor, indIEDest: 9 };
  }
  if (ctx.modelo === 55) {
    if (destSources === 0) problems.add(['customer'], 'an NF-e needs a recipient (customerId or customer)');
  } else if (dest !== null) {
    // NFC-e: consumers are never ICMS contributors (MOC 7.0 E16a, rule 790).
    dest.indIEDest = 9;
    delete dest.IE;
  }

  const tpNF = payload.tipoOperacao;
  // idDest 2 (interstate) when the recipient's address is in another state (MOC 7.0 B11a).
  const interstate =
    ctx.modelo === 55 && dest?.enderDest !== undefined && dest.enderDest.UF !== ctx.emit.enderEmit.UF;
  const itemList = payload.itens ?? [];
  if (itemList.length === 0) problems.add(['itens'], 'at least one item is required');
  const detailedMode = itemList.some((i) => i.impostos !== undefined);
  const itens = itemList.map((item, i) =>
    resolveItem(item, i, ctx, problems, detailedMode, { tpNF, interstate }),
  );
  const detPag = resolvePayments(payload, ctx.modelo, problems, ctx.pixCharges);

  const NFref = payload.nfeReferenciada ?? [];
  NFref.forEach((key, i) => {
    if (!isValidAccessKey(key)) problems.add(['nfeReferenciada', i], 'not a valid 44-character access key');
  });
  if (payload.finalidade === 4 && NFref.length === 0) {
    problems.rule(
      ['nfeReferenciada'],
      'required for a devolução (finalidade 4): the access key of the returned note (SEFAZ rejects it with cStat 321)',
      {
        cStat: '321',
        xMotivo: 'Rejeicao: NF-e de devolucao de mercadoria nao possui documento fiscal referenciado',
      },
    );
  }

  const isentoFault = isentoRecipientFault(
    dest,
    itens.filter((i) => i !== null),
  );
  if (isentoFault !== null) {
    const where: PropertyKey[] =
      payload.customerId !== undefined
        ? ['customerId']
        : payload.customer?.indIEDest !== undefined
          ? ['customer', 'indIEDest']
          : ['customer', 'ie'];
    problems.rule(where, isentoFault.error, isentoFault.rule);
  }
  // Rule 696: an operation with a non-contributor is an operation with the final consumer; the service sets
  // indFinal when it is omitted (§7) and refuses a contradicting one before SEFAZ does.
  const nonContributor = dest === null || dest.indIEDest === 9;
  const askedFinal =
    payload.indFinal ?? (payload.consumidorFinal === undefined ? undefined : payload.consumidorFinal ? 1 : 0);
  if (askedFinal === 0 && nonContributor && (ctx.modelo === 65 || dest !== null)) {
    problems.rule(
      [payload.indFinal !== undefined ? 'indFinal' : 'consumidorFinal'],
      'must be 1 when the recipient is not an ICMS contributor (indIEDest 9); SEFAZ rejects it with cStat 696',
      {
        cStat: '696',
        xMotivo: 'Rejeicao: Operacao com nao contribuinte deve indicar operacao com consumidor final',
      },
    );
  }
  const indFinal: 0 | 1 = nonContributor ? 1 : (askedFinal ?? 0);
  const presencePath = payload.indPres !== undefined ? 'indPres' : 'presenca';
  // §2.1/§2.6: indPres defaults to 1 (in person); devoluções and ajustes are not sales (0, MOC 7.0 B25b).
  const indPres = (payload.indPres ??
    payload.presenca ??
    (ctx.modelo === 55 && payload.finalidade !== 1 ? 0 : 1)) as NfeModel['indPres'];
  if (ctx.modelo === 65 && indPres !== 1 && indPres !== 4) {
    problems.add([presencePath], 'an NFC-e is presencial (1) or entrega a domicílio (4)');
  }
  if (payload.transporte?.modFrete !== undefined && payload.modalidadeFrete !== undefined) {
    problems.add(['transporte', 'modFrete'], 'give the freight modality once (transporte.modFrete)');
  }
  const modFrete = payload.transporte?.modFrete ?? payload.modalidadeFrete ?? 9;
  // Carrier, volumes, invoice and instalments, and returned taxes (cobr-transp.ts).
  const docCtx = {
    modelo: ctx.modelo,
    nNF: ctx.nNF,
    dhEmi: ctx.dhEmi,
    emitUf: ctx.emit.enderEmit.UF,
    interstate,
    indPres,
  };
  const { transp, faults: transpFaults } = transpFromPayload(payload, docCtx);
  const { cobr, faults: cobrFaults } = cobrFromPayload(payload, docCtx);
  for (const f of [...transpFaults, ...cobrFaults, ...impostoDevolFaults(payload.finalidade, itens)]) {
    if (f.rule === undefined) problems.add(f.path, f.error);
    else problems.rule(f.path, f.error, f.rule);
  }
  // A sale by boleto or duplicata with instalments is a prazo (indPag 1) unless the caller said otherwise.
  if (cobr !== null && cobr.dup.length > 0) {
    for (const p of detPag) if ((p.tPag === '15' || p.tPag === '14') && p.indPag === null) p.indPag = 1;
  }

  // Operation rules of the authority (operation.ts): CFOP against tpNF/idDest/NFC-e (518/519/725/731-733),
  // freight on an NFC-e (753), the technical responsible the emitter's UF requires (972/975).
  const rulePath = (path: PropertyKey[], error: string, rule: RuleRejection) =>
    problems.rule(path, error, rule);
  checkCfops(
    itens.flatMap((model, i) => {
      const given = itemList[i];
      if (model === null || given === undefined) return [];
      const field = given.cfop !== undefined ? 'cfop' : given.CFOP !== undefined ? 'CFOP' : 'fiscalProfileId';
      return [{ cfop: model.CFOP, path: ['itens', i, field] }];
    }),
    { modelo: ctx.modelo, tpNF, idDest: idDestOf({ modelo: ctx.modelo, dest, emit: ctx.emit }) },
    rulePath,
  );
  if (ctx.modelo === 65) {
    checkNfceFreight(
      {
        indPres,
        modFrete,
        modFretePath:
          payload.transporte?.modFrete === undefined && payload.modalidadeFrete !== undefined
            ? ['modalidadeFrete']
            : ['transporte', 'modFrete'],
        freight: [
          { value: payload.valorFrete, path: ['valorFrete'] },
          ...itemList.map((item, i) => ({ value: item.valorFrete, path: ['itens', i, 'valorFrete'] })),
        ],
      },
      rulePath,
    );
  }
  checkRespTec({ ...ctx, modelo: ctx.modelo }, rulePath);
  if (!problems.empty || itens.some((i) => i === null)) return problems.failure();

  const model: NfeModel = {
    modelo: ctx.modelo,
    serie: payload.serie ?? ctx.serie,
    nNF: ctx.nNF,
    cNF: ctx.cNF,
    dhEmi: ctx.dhEmi,
    tpAmb: ctx.tpAmb,
    tpEmis: ctx.tpEmis,
    contingency: ctx.contingency,
    natOp: normalizeFreeText(naturezaOperacao as string, 60),
    tpNF,
    finNFe: payload.finalidade,
    indFinal,
    indPres,
    // MOC 7.0 B25c: indIntermed only goes with indPres 1, 2, 3, 4, 5 or 9.
    indIntermed: indPres === 0 ? null : payload.intermediador === true ? 1 : 0,
    verProc: ctx.verProc,
    emit: ctx.emit,
    dest,
    itens: itens as ItemModel[],
    vFrete: payload.valorFrete ?? null,
    vSeg: payload.valorSeguro ?? null,
    vDesc: payload.valorDesconto ?? null,
    vOutro: payload.valorOutros ?? null,
    modFrete: modFrete as NfeModel['modFrete'],
    detPag,
    vTroco: null,
    infCpl:
      payload.informacoesAdicionais === undefined
        ? null
        : normalizeFreeText(payload.informacoesAdicionais, 5000),
    infAdFisco:
      payload.informacoesFisco === undefined ? null : normalizeFreeText(payload.informacoesFisco, 2000),
    NFref,
    infRespTec: ctx.infRespTec,
    transp,
    cobr,
    ibsCbsRates: ctx.ibsCbsRates,
  };
  return { ok: true, model, payload };
}

/**
 * A recipient written as the specification draws it (§2.2 spelling A, or spelling B's destinatario), for
 * the saved customers of POST /v1/customers: the same checks and the same IBGE lookup as a note's inline
 * recipient, with every fault named from the body's root in the caller's spelling.
 */
export function normalizeRecipient(
  raw: unknown,
): { ok: true; dest: DestModel } | { ok: false; errors: ErrorDetail[] } {
  const problems = new Problems({ customer: raw }, writesSpellingB(raw));
  const root = (field: string) => field.replace(/^(customer|destinatario)(\.|$)/, '') || 'body';
  const failure = () => ({
    ok: false as const,
    errors: problems.list.map((e) => ({ field: root(e.field), error: e.error })),
  });
  const parsed = parseLeniently(customerPayloadSchema, toSpellingA(raw), problems, ['customer']);
  if (parsed === undefined) return failure();
  // A saved customer may be a consumer known by CPF and name only; the NF-e asks for the address when used.
  const dest = destFromPayload(parsed, problems, 55, false);
  if (!problems.empty || dest === null) return failure();
  return { ok: true, dest };
}

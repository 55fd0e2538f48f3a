// Turns a creation payload in either spelling (A camelCase, B snake_case) into the internal NfeModel,
// collecting every fault with its path in the caller's own spelling (e.g. `itens[2].valor_unitario`).
import type { z } from 'zod';
import { formatFieldPath, type ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import type { FiscalProfileView, FiscalTaxes, ProductView } from '../../../src-shared/contracts/catalog.ts';
import {
  nfePayloadSchema,
  type CustomerPayload,
  type ItemPayload,
  type NfePayload,
} from '../../../src-shared/contracts/nfe-payload.ts';
import { CARD_TPAG, resolveTPag } from '../../../src-shared/tables/payment-methods.ts';
import { isUf } from '../../../src-shared/uf.ts';
import { isValidAccessKey } from '../access-key.ts';
import { findMunicipio } from '../../reference/ibge.ts';
import { normalizeFreeText } from '../xml.ts';
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
};

const snakeToCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** Renames keys to spelling A (snake_case → camelCase, plus the aliases above). */
export function toSpellingA(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toSpellingA);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    out[ALIASES[key] ?? (key.includes('_') ? snakeToCamel(key) : key)] = toSpellingA(child);
  }
  return out;
}

/**
 * camelCase path → the caller's own path, so errors speak the caller's spelling. Built only when there are
 * errors to report: the happy path of a cashier's sale never pays for it.
 */
function originalPaths(input: unknown): Map<string, string> {
  const paths = new Map<string, string>();
  const walk = (node: unknown, newPath: PropertyKey[], oldPath: PropertyKey[]): void => {
    paths.set(formatFieldPath(newPath), formatFieldPath(oldPath));
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, [...newPath, i], [...oldPath, i]));
    else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        walk(
          child,
          [...newPath, ALIASES[key] ?? (key.includes('_') ? snakeToCamel(key) : key)],
          [...oldPath, key],
        );
      }
    }
  };
  walk(input, [], []);
  return paths;
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
  lookup: {
    customer(id: string): CustomerView | undefined;
    product(id: string): ProductView | undefined;
    profile(id: string): FiscalProfileView | undefined;
  };
}

export type NormalizeResult =
  { ok: true; model: NfeModel; payload: NfePayload } | { ok: false; errors: ErrorDetail[] };

class Problems {
  private readonly found: { path: PropertyKey[]; error: string }[] = [];
  private paths: Map<string, string> | undefined;
  constructor(private readonly input: unknown) {}
  add(path: PropertyKey[], error: string): void {
    this.found.push({ path, error });
  }
  get empty(): boolean {
    return this.found.length === 0;
  }
  get list(): ErrorDetail[] {
    return this.found.map(({ path, error }) => ({ field: this.original(formatFieldPath(path)), error }));
  }
  /** Maps a camelCase path back to the caller's spelling, also for fields the caller did not send. */
  private original(key: string): string {
    this.paths ??= originalPaths(this.input);
    const exact = this.paths.get(key);
    if (exact !== undefined) return exact;
    const cut = key.lastIndexOf('.');
    if (cut > 0) {
      const parent = this.paths.get(key.slice(0, cut));
      const leaf = key.slice(cut + 1);
      const parentIsSnake = parent !== key.slice(0, cut);
      if (parent !== undefined)
        return `${parent}.${parentIsSnake ? leaf.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : leaf}`;
    }
    return key;
  }
}

function zodProblems(error: z.ZodError, problems: Problems): void {
  for (const issue of error.issues) problems.add(issue.path, issue.message);
}

function destFromCustomerView(c: CustomerView): DestModel {
  const dest: DestModel = { indIEDest: c.indIEDest as 1 | 2 | 9, xNome: c.xNome };
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
      xLgr: e.xLgr,
      nro: e.nro,
      xCpl: e.xCpl,
      xBairro: e.xBairro,
      cMun: e.cMun,
      xMun: e.xMun ?? findMunicipio(e.cMun)?.xMun ?? '',
      UF: e.uf,
      CEP: e.cep,
      fone: null,
    };
  }
  return dest;
}

function destFromPayload(c: CustomerPayload, problems: Problems): DestModel | null {
  const ids = [c.cpf, c.cnpj, c.idEstrangeiro].filter((v) => v !== undefined).length;
  if (ids !== 1) {
    problems.add(['customer', 'cpf'], 'give exactly one of cpf, cnpj or idEstrangeiro');
    return null;
  }
  const ie = c.ie?.replace(/[.\-/\s]/g, '').toUpperCase();
  const indIEDest =
    c.indIEDest ?? (c.cnpj !== undefined && ie !== undefined && ie !== '' ? (ie === 'ISENTO' ? 2 : 1) : 9);
  const dest: DestModel = { indIEDest };
  if (c.cpf !== undefined) dest.CPF = c.cpf;
  if (c.cnpj !== undefined) dest.CNPJ = c.cnpj;
  if (c.idEstrangeiro !== undefined) dest.idEstrangeiro = c.idEstrangeiro;
  if (c.nome !== undefined) dest.xNome = normalizeFreeText(c.nome, 60);
  if (indIEDest === 1) {
    if (ie === undefined || !/^\d{2,14}$/.test(ie))
      problems.add(['customer', 'ie'], 'indIEDest 1 requires the IE (digits)');
    else dest.IE = ie;
  }
  if (c.email !== undefined) dest.email = c.email;
  const e = c.endereco;
  if (e !== undefined) {
    const a =
      'logradouro' in e
        ? {
            xLgr: e.logradouro,
            nro: e.numero,
            xCpl: e.complemento ?? null,
            xBairro: e.bairro,
            cMun: e.codigoMunicipio,
            xMun: e.municipio ?? '',
            uf: e.uf.toUpperCase(),
            cep: e.cep?.replace(/\D/g, '') ?? null,
            fone: e.telefone?.replace(/\D/g, '') ?? null,
          }
        : {
            xLgr: e.xLgr,
            nro: e.nro,
            xCpl: e.xCpl ?? null,
            xBairro: e.xBairro,
            cMun: e.cMun,
            xMun: e.xMun ?? '',
            uf: e.uf,
            cep: e.cep,
            fone: e.fone ?? null,
          };
    const municipio = findMunicipio(a.cMun);
    const cMunPath = ['customer', 'endereco', 'logradouro' in e ? 'codigoMunicipio' : 'cMun'];
    if (!isUf(a.uf)) problems.add(['customer', 'endereco', 'uf'], 'unknown UF');
    else if (municipio === undefined) problems.add(cMunPath, 'unknown IBGE municipality code');
    else if (municipio.uf !== a.uf) problems.add(cMunPath, `municipality code is not in UF ${a.uf}`);
    else {
      // xMun is optional in the payload; the XML needs it, and the IBGE name is the one SEFAZ knows.
      const xMun = a.xMun === '' ? municipio.xMun : a.xMun;
      dest.enderDest = {
        xLgr: a.xLgr,
        nro: a.nro,
        xCpl: a.xCpl,
        xBairro: a.xBairro,
        cMun: a.cMun,
        xMun,
        UF: a.uf,
        CEP: a.cep,
        fone: a.fone,
      };
    }
  }
  return dest;
}

function resolveItem(
  item: ItemPayload,
  index: number,
  ctx: NormalizeContext,
  problems: Problems,
  detailedMode: boolean,
): ItemModel | null {
  const at = (field: string): PropertyKey[] => ['itens', index, field];
  const product = item.productId === undefined ? undefined : ctx.lookup.product(item.productId);
  if (item.productId !== undefined && product === undefined) {
    problems.add(at('productId'), 'no such product in this company');
    return null;
  }
  const profileId = item.fiscalProfileId ?? product?.fiscalProfileId ?? undefined;
  const profile = profileId === undefined ? undefined : ctx.lookup.profile(profileId);
  if (item.fiscalProfileId !== undefined && profile === undefined) {
    problems.add(at('fiscalProfileId'), 'no such fiscal profile in this company');
  }
  const taxes: FiscalTaxes | undefined = item.tributacao ?? profile?.taxes;
  const cProd = item.codigo ?? product?.cProd;
  const xProd = item.descricao ?? product?.xProd;
  const NCM = item.ncm ?? product?.NCM;
  const uCom = item.unidade ?? product?.uCom;
  const vUnCom = item.valorUnitario ?? product?.vUnCom;
  const CFOP = item.cfop ?? profile?.CFOP;
  const missing: [string, unknown][] = [
    ['codigo', cProd],
    ['descricao', xProd],
    ['ncm', NCM],
    ['unidade', uCom],
    ['valorUnitario', vUnCom],
    ['cfop', CFOP],
  ];
  let complete = true;
  for (const [field, value] of missing) {
    if (value === undefined) {
      problems.add(at(field), product === undefined ? 'required' : 'required (the product does not give it)');
      complete = false;
    }
  }
  if (taxes === undefined) {
    problems.add(at('fiscalProfileId'), 'required: a fiscal profile (item or product) or inline tributacao');
    complete = false;
  }
  if (detailedMode && item.impostos === undefined) {
    problems.add(at('impostos'), 'every item needs impostos when one item gives them (detailed mode)');
  }
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
    uCom: normalizeFreeText(uCom as string, 6),
    qCom: item.quantidade,
    vUnCom: vUnCom as string,
    vDesc: item.valorDesconto ?? null,
    vFrete: item.valorFrete ?? null,
    vSeg: item.valorSeguro ?? null,
    vOutro: item.valorOutros ?? null,
    taxes,
    detailed: item.impostos ?? null,
    infAdProd:
      item.informacoesAdicionais === undefined ? null : normalizeFreeText(item.informacoesAdicionais, 500),
  };
}

function resolvePayments(payload: NfePayload, modelo: Modelo, problems: Problems): DetPagModel[] {
  if (payload.pagamentos === undefined || payload.pagamentos.length === 0) {
    if (modelo === 55 && (payload.finalidade === 3 || payload.finalidade === 4)) {
      // MOC 7.0 YA02: notes of ajuste and devolução carry tPag 90 "sem pagamento".
      return [{ tPag: '90', xPag: null, vPag: '0.00', indPag: null, card: null }];
    }
    problems.add(['pagamentos'], 'at least one payment is required');
    return [];
  }
  return payload.pagamentos.map((p, i) => {
    const tPag = resolveTPag(p.forma);
    if (tPag === undefined) problems.add(['pagamentos', i, 'forma'], `unknown payment method '${p.forma}'`);
    if (tPag === '99' && p.descricao === undefined)
      problems.add(['pagamentos', i, 'descricao'], 'required for forma 99 (outros)');
    const needsCard = tPag !== undefined && CARD_TPAG.has(tPag);
    const card = p.cartao ?? (needsCard ? { integrado: false } : undefined);
    return {
      tPag: tPag ?? '99',
      xPag: p.descricao === undefined ? null : normalizeFreeText(p.descricao, 60),
      vPag: p.valor,
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

export function normalizeNfe(raw: unknown, ctx: NormalizeContext): NormalizeResult {
  const problems = new Problems(raw);
  const parsed = nfePayloadSchema.safeParse(toSpellingA(raw));
  if (!parsed.success) {
    zodProblems(parsed.error, problems);
    return { ok: false, errors: problems.list };
  }
  const payload = parsed.data;
  if (payload.modelo !== undefined && payload.modelo !== ctx.modelo) {
    problems.add(['modelo'], `this endpoint issues model ${ctx.modelo}`);
  }

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
    else dest = destFromCustomerView(found);
  } else if (payload.customer !== undefined) {
    dest = destFromPayload(payload.customer, problems);
  } else if (payload.cpfConsumidor !== undefined) {
    dest = { CPF: payload.cpfConsumidor, indIEDest: 9 };
  }
  if (ctx.modelo === 55) {
    if (dest === null && destSources === 0)
      problems.add(['customer'], 'an NF-e needs a recipient (customerId or customer)');
    if (dest !== null && dest.xNome === undefined)
      problems.add(['customer', 'nome'], 'required for an NF-e recipient');
    if (dest !== null && dest.enderDest === undefined)
      problems.add(['customer', 'endereco'], 'required for an NF-e recipient');
  } else if (dest !== null) {
    // NFC-e: consumers are never ICMS contributors (MOC 7.0 E16a, rule 790).
    dest.indIEDest = 9;
    delete dest.IE;
  }

  const detailedMode = payload.itens.some((i) => i.impostos !== undefined);
  const itens = payload.itens.map((item, i) => resolveItem(item, i, ctx, problems, detailedMode));
  const detPag = resolvePayments(payload, ctx.modelo, problems);

  const NFref = payload.nfeReferenciada ?? [];
  NFref.forEach((key, i) => {
    if (!isValidAccessKey(key)) problems.add(['nfeReferenciada', i], 'not a valid 44-character access key');
  });
  if (payload.finalidade === 4 && NFref.length === 0) {
    problems.add(['nfeReferenciada'], 'a devolução (finalidade 4) must reference the returned note');
  }

  // Rule 696: an operation with a non-contributor is an operation with the final consumer.
  const nonContributor = dest === null || dest.indIEDest === 9;
  let indFinal: 0 | 1 =
    payload.consumidorFinal === undefined
      ? ctx.modelo === 65 || nonContributor
        ? 1
        : 0
      : payload.consumidorFinal
        ? 1
        : 0;
  if (nonContributor) indFinal = 1;
  const indPres = (payload.presenca ??
    (ctx.modelo === 65 ? 1 : payload.finalidade === 1 ? 9 : 0)) as NfeModel['indPres'];
  if (ctx.modelo === 65 && indPres !== 1 && indPres !== 4) {
    problems.add(['presenca'], 'an NFC-e is presencial (1) or entrega a domicílio (4)');
  }

  if (!problems.empty || itens.some((i) => i === null)) return { ok: false, errors: problems.list };

  const model: NfeModel = {
    modelo: ctx.modelo,
    serie: payload.serie ?? ctx.serie,
    nNF: ctx.nNF,
    cNF: ctx.cNF,
    dhEmi: ctx.dhEmi,
    tpAmb: ctx.tpAmb,
    tpEmis: ctx.tpEmis,
    contingency: ctx.contingency,
    natOp: normalizeFreeText(payload.naturezaOperacao, 60),
    tpNF: payload.tipoOperacao,
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
    modFrete: (payload.modalidadeFrete ?? 9) as NfeModel['modFrete'],
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
    ibsCbsRates: ctx.ibsCbsRates,
  };
  return { ok: true, model, payload };
}

// DC-e payload (either spelling) + the company and its DC-e settings → DceModel: the one place where the
// payload's names meet the layout's tags. Every fault comes back at once, named in the caller's spelling; the
// checks that need the company (issuer type, site, carrier) run even when other fields failed to parse.
import type { z } from 'zod';
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import {
  dceEnderecoSchema,
  dceItemSchema,
  dcePartySchema,
  dceTipoEmitenteInputSchema,
  dceTransporteSchema,
  parseDcePayload,
  type DceFieldNamer,
} from '../../../src-shared/contracts/dce-payload.ts';
import type { DceTipoEmitente } from '../../../src-shared/contracts/dce-view.ts';
import { formatCents, formatScaled, lineTotal, parseScaled, SCALE, sum } from '../../../src-shared/money.ts';
import { ufBySigla, type UfSigla } from '../../../src-shared/uf.ts';
import { findMunicipio } from '../../reference/ibge.ts';
import { normalizeFreeText } from '../xml.ts';
import { dceAccessKey, randomCDC } from './access-key.ts';
import type { DceAddress, DceIssuer, DceItem, DceModel, DceParty, DceTpEmit } from './model.ts';

/** The company that issues (signs): its CNPJ goes into the key and into the Marketplace/Transportadora group. */
export interface DceCompany {
  CNPJ: string;
  xNome: string;
  /** The emitter's address without the e-mail, which only the recipient's carries. */
  enderEmit: Omit<DceAddress, 'email'>;
}

/** The company's DC-e settings (documents/kinds/dce/settings.ts): the defaults of an omitted field. */
export interface DceDefaults {
  tipoEmitente: DceTipoEmitente;
  site: string | null;
}

export interface DceNormalizeContext {
  company: DceCompany;
  settings: DceDefaults;
  tpAmb: 1 | 2;
  /** Reserved by the lifecycle from the payload's serie or the settings' one. */
  serie: number;
  nDC: number;
  /** AAAA-MM-DDThh:mm:ss±hh:mm, the company's local time. */
  dhEmi: string;
  /** 6 digits; a random one when omitted. */
  cDC?: string;
  verProc?: string;
  /** The authorizer's pages for infDCeSupl (authority/dce/endpoints.ts dcePages): QR-code base and consultation. */
  pages: { qrCode: string; consulta: string };
}

export type DceNormalizeResult = { ok: true; model: DceModel } | { ok: false; errors: ErrorDetail[] };

export const DCE_VER_PROC = 'Balcao 0.1.0';

const TP_EMIT: Readonly<Record<DceTipoEmitente, DceTpEmit>> = {
  marketplace: 1,
  proprio: 2,
  transportadora: 3,
};
const MOD_TRANS = { correios: 0, proprio: 1, transportadora: 2 } as const;

/**
 * NCM when the payload has none. The DC-e manual marks NCM optional, the 1.00 schema requires it (the chapter,
 * 2 digits, or the full 8), and issuers write `00` when there is no chapter to give (as the FlexDocs DC-e guide,
 * §4.6, tells for services): the issue asks for the NCM only "where known", and a declarant sending used goods
 * rarely knows it. Callers who know the chapter should send it.
 */
export const DCE_NCM_UNKNOWN = '00';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function partOf<S extends z.ZodType>(schema: S, value: unknown): z.output<S> | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** qCom as TDec_1104Opc writes it: always 4 decimals. */
const qComText = (q: bigint) => formatScaled(q, SCALE.quantity);
/** vUnCom as TDec_1302_1308 writes it: the caller's decimals, at least 2. */
function vUnComText(v: bigint): string {
  const full = formatScaled(v, SCALE.unitPrice);
  return full.replace(/0+$/, '').replace(/\.(\d?)$/, (_m, d: string) => `.${d.padEnd(2, '0')}`);
}

class Faults {
  private readonly found = new Map<string, string>();
  constructor(private readonly name: DceFieldNamer) {}
  addNamed(field: string, error: string): void {
    if (!this.found.has(field)) this.found.set(field, error);
  }
  add(path: PropertyKey[], error: string): void {
    this.addNamed(this.name(path), error);
  }
  get empty(): boolean {
    return this.found.size === 0;
  }
  get list(): ErrorDetail[] {
    return [...this.found].map(([field, error]) => ({ field, error }));
  }
}

/** TEndeEmi/TEndeDest from a party's address; checked even when the rest of the party has faults. */
function addressOf(
  a: z.output<typeof dceEnderecoSchema>,
  at: 'emitente' | 'destinatario',
  faults: Faults,
): DceAddress | null {
  const xMun = a.xMun ?? findMunicipio(a.cMun)?.xMun;
  if (xMun === undefined) faults.add([at, 'endereco', 'cMun'], 'unknown IBGE municipality code');
  // TEndeEmi/TEndeDest: fone [0-9]{7,12}, narrower than the other kinds' addresses.
  if (a.fone !== undefined && !/^\d{7,12}$/.test(a.fone)) {
    faults.add([at, 'endereco', 'fone'], 'must have 7 to 12 digits');
  }
  if (at === 'emitente' && a.email !== undefined) {
    faults.add(
      [at, 'endereco', 'email'],
      "only the recipient's address carries an e-mail in the DC-e layout",
    );
  }
  if (xMun === undefined) return null;
  return {
    xLgr: normalizeFreeText(a.xLgr, 60),
    nro: normalizeFreeText(a.nro, 60),
    xCpl: a.xCpl === undefined ? null : normalizeFreeText(a.xCpl, 60) || null,
    xBairro: normalizeFreeText(a.xBairro, 60),
    cMun: a.cMun,
    xMun: normalizeFreeText(xMun, 60),
    UF: a.uf as UfSigla,
    CEP: a.cep,
    fone: a.fone ?? null,
    email: a.email ?? null,
  };
}

/**
 * The party of the payload (`parsed` when the whole body parsed, else what of `raw` parses on its own: its
 * address is checked even when its name or id has a fault).
 */
function partyOf(
  raw: unknown,
  parsed: z.output<typeof dcePartySchema> | undefined,
  at: 'emitente' | 'destinatario',
  faults: Faults,
): DceParty | null {
  const endereco = parsed?.endereco ?? (isObject(raw) ? partOf(dceEnderecoSchema, raw.endereco) : undefined);
  const ender = endereco === undefined ? null : addressOf(endereco, at, faults);
  const p = parsed ?? partOf(dcePartySchema, raw);
  if (p === undefined || ender === null) return null;
  const xNome = normalizeFreeText(p.nome, 60);
  if (p.cpf !== undefined) return { CPF: p.cpf, xNome, ender };
  if (p.cnpj !== undefined) return { CNPJ: p.cnpj, xNome, ender };
  if (p.idOutros !== undefined) return { idOutros: p.idOutros, xNome, ender };
  const doc = p.cpfCnpj ?? '';
  return doc.length === 11 ? { CPF: doc, xNome, ender } : { CNPJ: doc, xNome, ender };
}

function companyParty(c: DceCompany): DceParty {
  const e = c.enderEmit;
  return {
    CNPJ: c.CNPJ,
    xNome: normalizeFreeText(c.xNome, 60),
    ender: {
      xLgr: normalizeFreeText(e.xLgr, 60),
      nro: normalizeFreeText(e.nro, 60),
      xCpl: e.xCpl === null ? null : normalizeFreeText(e.xCpl, 60) || null,
      xBairro: normalizeFreeText(e.xBairro, 60),
      cMun: e.cMun,
      xMun: normalizeFreeText(e.xMun, 60),
      UF: e.UF,
      CEP: e.CEP,
      // The company's phone is kept only when the DC-e's narrower pattern takes it.
      fone: e.fone !== null && /^\d{7,12}$/.test(e.fone) ? e.fone : null,
      email: null,
    },
  };
}

function itemOf(i: z.output<typeof dceItemSchema>): DceItem {
  const q = parseScaled(i.quantidade, SCALE.quantity);
  const v = parseScaled(i.valorUnitario, SCALE.unitPrice);
  return {
    xProd: normalizeFreeText(i.descricao, 120),
    NCM: i.ncm ?? DCE_NCM_UNKNOWN,
    qCom: qComText(q),
    vUnCom: vUnComText(v),
    vProd: formatCents(lineTotal(q, v)),
    infAdProd:
      i.informacoesAdicionais === undefined ? null : normalizeFreeText(i.informacoesAdicionais, 500) || null,
  };
}

export function normalizeDce(raw: unknown, ctx: DceNormalizeContext): DceNormalizeResult {
  const parsed = parseDcePayload(raw);
  const faults = new Faults(parsed.name);
  if (!parsed.ok) for (const e of parsed.errors) faults.addNamed(e.field, e.error);
  const body: Json = isObject(parsed.body) ? parsed.body : {};
  // With a valid body the parsed sections are used as they are; the schema runs again only on a faulty body.
  const ok = parsed.ok ? parsed.payload : undefined;

  // The DC-e 1.00 key and TCnpj take digits only: a company with an alphanumeric CNPJ cannot issue yet.
  if (!/^\d{14}$/.test(ctx.company.CNPJ)) {
    faults.addNamed(
      'company.cnpj',
      'the DC-e layout 1.00 takes a numeric CNPJ only; this company cannot issue it',
    );
  }
  const uf = ufBySigla(ctx.company.enderEmit.UF);

  const tipo: DceTipoEmitente | undefined =
    body.tipoEmitente === undefined
      ? ctx.settings.tipoEmitente
      : partOf(dceTipoEmitenteInputSchema, body.tipoEmitente);

  // The declarant: the company itself for proprio, a party of the payload otherwise.
  let emit: DceParty | null = null;
  if (tipo === 'proprio') {
    if (body.emitente !== undefined) {
      faults.add(['emitente'], 'not with the issuer type proprio: the company itself is the declarant');
    }
    emit = companyParty(ctx.company);
  } else if (tipo !== undefined && body.emitente === undefined) {
    faults.add(['emitente'], `required with the issuer type ${tipo}: the declarant (sender) of the goods`);
  } else if (body.emitente !== undefined) {
    emit = partyOf(body.emitente, ok?.emitente, 'emitente', faults);
  }

  let issuer: DceIssuer | null = null;
  const site = typeof body.site === 'string' ? body.site.trim() : (ctx.settings.site ?? undefined);
  if (tipo === 'marketplace') {
    if (site === undefined || site === '') {
      faults.add(
        ['site'],
        "required with the issuer type marketplace: the shop's site (or the DC-e settings' one)",
      );
    } else {
      issuer = {
        group: 'Marketplace',
        CNPJ: ctx.company.CNPJ,
        xNome: normalizeFreeText(ctx.company.xNome, 60),
        Site: normalizeFreeText(site, 120),
      };
    }
  } else if (tipo !== undefined && body.site !== undefined) {
    faults.add(['site'], 'only with the issuer type marketplace');
  }
  if (tipo === 'transportadora') {
    issuer = {
      group: 'Transportadora',
      CNPJ: ctx.company.CNPJ,
      xNome: normalizeFreeText(ctx.company.xNome, 60),
    };
  }

  const dest = partyOf(body.destinatario, ok?.destinatario, 'destinatario', faults);

  // On a faulty body each item that parses on its own is still computed (its own faults are already listed).
  const det: (DceItem | null)[] =
    ok !== undefined
      ? ok.itens.map(itemOf)
      : (Array.isArray(body.itens) ? body.itens : []).map((i: unknown) => {
          const item = partOf(dceItemSchema, i);
          return item === undefined ? null : itemOf(item);
        });

  // A carrier issuing carries the goods itself unless told otherwise; everyone else defaults to the Correios.
  const transporte =
    body.transporte === undefined
      ? { modalidade: tipo === 'transportadora' ? ('transportadora' as const) : ('correios' as const) }
      : partOf(dceTransporteSchema, body.transporte);
  let CNPJTransp: string | null = null;
  if (transporte?.modalidade === 'transportadora') {
    CNPJTransp = transporte.cnpjTransportadora ?? (tipo === 'transportadora' ? ctx.company.CNPJ : null);
    if (CNPJTransp === null) {
      faults.add(['transporte', 'cnpjTransportadora'], 'required with the modality transportadora');
    }
  }

  if (
    !faults.empty ||
    !parsed.ok ||
    tipo === undefined ||
    emit === null ||
    dest === null ||
    uf === undefined ||
    transporte === undefined ||
    det.some((d) => d === null)
  ) {
    if (faults.empty) faults.addNamed('body', 'the DC-e could not be read');
    return { ok: false, errors: faults.list };
  }
  const items = det as DceItem[];
  const payload = parsed.payload;

  const tpEmit = TP_EMIT[tipo];
  const cDC = ctx.cDC ?? randomCDC();
  const { chave, cDV } = dceAccessKey({
    cUF: uf.cUF,
    dhEmi: ctx.dhEmi,
    cnpj: ctx.company.CNPJ,
    serie: ctx.serie,
    nDC: ctx.nDC,
    tpEmis: 1,
    tpEmit,
    nSiteAutoriz: 0,
    cDC,
  });
  const obs = (payload.observacoes ?? []).map((o) => ({
    xCampo: normalizeFreeText(o.campo, 20),
    xTexto: normalizeFreeText(o.texto, 60),
  }));
  const infCpl =
    payload.informacoesComplementares === undefined
      ? null
      : normalizeFreeText(payload.informacoesComplementares, 5000) || null;

  return {
    ok: true,
    model: {
      ide: {
        cUF: uf.cUF,
        cDC,
        serie: ctx.serie,
        nDC: ctx.nDC,
        dhEmi: ctx.dhEmi,
        tpEmis: 1,
        tpEmit,
        nSiteAutoriz: 0,
        cDV,
        tpAmb: ctx.tpAmb,
        verProc: ctx.verProc ?? DCE_VER_PROC,
      },
      emit,
      issuer,
      dest,
      det: items,
      vDC: formatCents(sum(items.map((i) => parseScaled(i.vProd, SCALE.money)))),
      transp: { modTrans: MOD_TRANS[transporte.modalidade], CNPJTransp },
      infAdic:
        infCpl === null && obs.length === 0
          ? null
          : { infCpl, obsTag: tipo === 'marketplace' ? 'obsMarketplace' : 'obsEmit', obs },
      chave,
      supl: {
        qrCodDCe: `${ctx.pages.qrCode}?chDCe=${chave}&tpAmb=${ctx.tpAmb}`,
        urlChave: ctx.pages.consulta,
      },
    },
  };
}

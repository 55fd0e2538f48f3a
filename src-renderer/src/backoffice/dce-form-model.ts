// The DC-e form's logic without a browser: the issuer type and who declares, the recipient picked from the
// customers or typed (CPF/CNPJ or a foreign id), the items with their totals in exact cents (vProd = qCom ×
// vUnCom rounded half-up, vDC their sum, as the service computes them), the carriage, and a draft read back
// from its XML into the form for editing.
import type { DceModalidade, DcePayloadInput } from '../../../src-shared/contracts/dce-payload.ts';
import {
  DCE_MODALIDADES_TRANSPORTE,
  DCE_TIPOS_EMITENTE,
  type DceTipoEmitente,
} from '../../../src-shared/contracts/dce-view.ts';
import { SCALE, lineTotal, parseScaled, sum } from '../../../src-shared/money.ts';
import { parseBrDecimal } from '../format.ts';
import { EMPTY_PARTY, partyOfCustomer, type PartyForm } from './cte-form-model.ts';
import type { DceContent, DceParty } from './dce-xml.ts';

/** A party of the DC-e: the CT-e form's party (its IE is not sent) with the DC-e's foreign id, complement and e-mail. */
export interface DcePartyForm extends PartyForm {
  /** The document typed is a foreign id (idOutros), not a CPF or CNPJ. */
  outroDoc: boolean;
  xCpl: string;
  fone: string;
  email: string;
}

export interface DceItemRow {
  key: number;
  descricao: string;
  ncm: string;
  quantidade: string;
  valorUnitario: string;
  informacoesAdicionais: string;
}

/** obsEmit / obsMarketplace: a named free text (xCampo, xTexto up to 60). */
export interface DceObservacaoRow {
  key: number;
  campo: string;
  texto: string;
}

export interface DceForm {
  tipoEmitente: DceTipoEmitente;
  /** Empty: the company's DC-e series. */
  serie: string;
  /** Marketplace/Site; empty: the company's DC-e setting. */
  site: string;
  /** The declarant (XML emit), not sent when the company declares itself (proprio). */
  emitente: DcePartyForm;
  destinatario: DcePartyForm;
  itens: DceItemRow[];
  modalidade: DceModalidade;
  cnpjTransportadora: string;
  informacoesComplementares: string;
  observacoes: DceObservacaoRow[];
}

export const EMPTY_DCE_PARTY: DcePartyForm = {
  ...EMPTY_PARTY,
  outroDoc: false,
  xCpl: '',
  fone: '',
  email: '',
};

let rowKey = 0;
export const newItemRow = (): DceItemRow => ({
  key: ++rowKey,
  descricao: '',
  ncm: '',
  quantidade: '1',
  valorUnitario: '',
  informacoesAdicionais: '',
});

export const newObservacaoRow = (): DceObservacaoRow => ({ key: ++rowKey, campo: '', texto: '' });

export const newDceForm = (tipoEmitente: DceTipoEmitente = 'marketplace'): DceForm => ({
  tipoEmitente,
  serie: '',
  site: '',
  emitente: EMPTY_DCE_PARTY,
  destinatario: EMPTY_DCE_PARTY,
  itens: [newItemRow()],
  modalidade: 'correios',
  cnpjTransportadora: '',
  informacoesComplementares: '',
  observacoes: [],
});

/**
 * The form under another issuer type: a carrier issuing carries the goods itself (the service writes the
 * company's CNPJ as the carrier's), so a form still on the Correios follows it, and back.
 */
export function withTipoEmitente(form: DceForm, tipo: DceTipoEmitente): DceForm {
  const untouched = form.cnpjTransportadora.trim() === '';
  if (tipo === 'transportadora' && form.modalidade === 'correios')
    return { ...form, tipoEmitente: tipo, modalidade: 'transportadora' };
  if (form.tipoEmitente === 'transportadora' && form.modalidade === 'transportadora' && untouched)
    return { ...form, tipoEmitente: tipo, modalidade: 'correios' };
  return { ...form, tipoEmitente: tipo };
}

/** What was typed ("1.234,5") at `scale`, null when it is not a number with at most `scale` places. */
export function typedScaled(text: string, scale: number): bigint | null {
  const t = parseBrDecimal(text);
  if (t === null) return null;
  try {
    return parseScaled(t, scale);
  } catch {
    return null;
  }
}

/** vProd of a row in cents (qCom × vUnCom, half-up), null while either is not a number. */
export function itemCents(row: Pick<DceItemRow, 'quantidade' | 'valorUnitario'>): bigint | null {
  const q = typedScaled(row.quantidade, SCALE.quantity);
  const v = typedScaled(row.valorUnitario, SCALE.unitPrice);
  return q === null || v === null ? null : lineTotal(q, v);
}

/** vDC: the sum of the rows that hold numbers (the others show their own problem). */
export function totalCents(rows: readonly Pick<DceItemRow, 'quantidade' | 'valorUnitario'>[]): bigint {
  return sum(rows.map((r) => itemCents(r) ?? 0n));
}

function trimmed(s: string): string | undefined {
  const t = s.trim();
  return t === '' ? undefined : t;
}

/** The decimal text the API reads from what was typed; the raw text when it is not a number (the API names it). */
function decimal(text: string): string {
  return parseBrDecimal(text) ?? text.trim();
}

function partyPayload(p: DcePartyForm): DcePayloadInput['destinatario'] {
  const xCpl = trimmed(p.xCpl);
  const xMun = trimmed(p.xMun);
  const fone = trimmed(p.fone);
  const email = trimmed(p.email);
  return {
    ...(p.outroDoc ? { idOutros: p.cpfCnpj.trim() } : { cpfCnpj: p.cpfCnpj.trim() }),
    nome: p.nome.trim(),
    endereco: {
      xLgr: p.xLgr.trim(),
      nro: p.nro.trim(),
      ...(xCpl === undefined ? {} : { xCpl }),
      xBairro: p.xBairro.trim(),
      cMun: p.cMun.trim(),
      ...(xMun === undefined ? {} : { xMun }),
      uf: p.uf,
      cep: p.cep.trim(),
      ...(fone === undefined ? {} : { fone }),
      ...(email === undefined ? {} : { email }),
    },
  };
}

/** POST /v1/dce and PUT /v1/dce/:id in spelling A; what the form leaves empty the service fills from its settings. */
export function dcePayloadOf(form: DceForm): DcePayloadInput {
  const serie = trimmed(form.serie);
  const site = trimmed(form.site);
  const infCpl = trimmed(form.informacoesComplementares);
  const cnpj = trimmed(form.cnpjTransportadora);
  const observacoes = form.observacoes
    .map((o) => ({ campo: o.campo.trim(), texto: o.texto.trim() }))
    .filter((o) => o.campo !== '' || o.texto !== '');
  return {
    tipoEmitente: form.tipoEmitente,
    // A series that is not a number goes as NaN → JSON null, so the service names the field.
    ...(serie === undefined ? {} : { serie: /^\d+$/.test(serie) ? Number(serie) : Number.NaN }),
    ...(form.tipoEmitente === 'proprio' ? {} : { emitente: partyPayload(form.emitente) }),
    ...(form.tipoEmitente === 'marketplace' && site !== undefined ? { site } : {}),
    destinatario: partyPayload(form.destinatario),
    itens: form.itens.map((i) => {
      const ncm = trimmed(i.ncm);
      const adicionais = trimmed(i.informacoesAdicionais);
      return {
        descricao: i.descricao.trim(),
        quantidade: decimal(i.quantidade),
        valorUnitario: decimal(i.valorUnitario),
        ...(ncm === undefined ? {} : { ncm }),
        ...(adicionais === undefined ? {} : { informacoesAdicionais: adicionais }),
      };
    }),
    transporte: {
      modalidade: form.modalidade,
      ...(form.modalidade === 'transportadora' && cnpj !== undefined ? { cnpjTransportadora: cnpj } : {}),
    },
    ...(infCpl === undefined ? {} : { informacoesComplementares: infCpl }),
    // A row left blank is not sent; one half typed goes, so the service names the missing half.
    ...(observacoes.length === 0 ? {} : { observacoes }),
  };
}

/** A registered customer as a party: name, CPF/CNPJ (or foreign id), address, phone and e-mail, still editable. */
export function dcePartyOfCustomer(
  c: Parameters<typeof partyOfCustomer>[0] & {
    idEstrangeiro: string | null;
    fone: string | null;
    email: string | null;
    endereco: (Parameters<typeof partyOfCustomer>[0]['endereco'] & { xCpl?: string | null }) | null;
  },
): DcePartyForm {
  const foreign = c.cnpj === null && c.cpf === null && c.idEstrangeiro !== null;
  return {
    ...partyOfCustomer(c),
    ...(foreign ? { cpfCnpj: c.idEstrangeiro ?? '' } : {}),
    outroDoc: foreign,
    xCpl: c.endereco?.xCpl ?? '',
    fone: c.fone ?? '',
    email: c.email ?? '',
  };
}

/** A decimal text of the XML as an input shows it: "2.5000" → "2,5", "10.00" → "10,00". */
function decimalInput(text: string, places: number): string {
  const [int = '0', frac = ''] = text.split('.');
  const kept = frac.replace(/0+$/, '').padEnd(places, '0');
  return kept === '' ? int : `${int},${kept}`;
}

function partyForm(p: DceParty): DcePartyForm {
  const e = p.endereco;
  return {
    ...EMPTY_DCE_PARTY,
    outroDoc: p.idOutros !== null,
    cpfCnpj: p.cnpj ?? p.cpf ?? p.idOutros ?? '',
    nome: p.nome,
    xLgr: e?.xLgr ?? '',
    nro: e?.nro ?? '',
    xCpl: e?.xCpl ?? '',
    xBairro: e?.xBairro ?? '',
    cMun: e?.cMun ?? '',
    xMun: e?.xMun ?? '',
    uf: e?.uf ?? '',
    cep: e?.cep ?? '',
    fone: e?.fone ?? '',
    email: e?.email ?? '',
  };
}

/** A draft or rejected DC-e (its signed XML) back in the form: PUT replaces the whole content with it. */
export function formOfDce(content: DceContent): DceForm {
  // tpEmit 1..3 in the contract's order; 0 and 4 (the fisco's app, the Correios) are not Balcão's.
  const tipo = DCE_TIPOS_EMITENTE[Number(content.tpEmit) - 1] ?? 'marketplace';
  return {
    tipoEmitente: tipo,
    serie: String(content.serie),
    site: content.issuer?.site ?? '',
    emitente: tipo === 'proprio' ? EMPTY_DCE_PARTY : partyForm(content.emitente),
    destinatario: partyForm(content.destinatario),
    itens: content.itens.map((i) => ({
      key: ++rowKey,
      descricao: i.descricao,
      // "00" is what the layout writes when no NCM was given (NCM is required there): the form shows none.
      ncm: i.ncm === '00' ? '' : i.ncm,
      quantidade: decimalInput(i.quantidade, 0),
      valorUnitario: decimalInput(i.valorUnitario, 2),
      informacoesAdicionais: i.informacoesAdicionais ?? '',
    })),
    modalidade: DCE_MODALIDADES_TRANSPORTE[Number(content.modTrans)] ?? 'correios',
    cnpjTransportadora: content.modTrans === '2' ? (content.cnpjTransp ?? '') : '',
    informacoesComplementares: content.informacoesComplementares ?? '',
    observacoes: content.observacoes.map((o) => ({ key: ++rowKey, ...o })),
  };
}

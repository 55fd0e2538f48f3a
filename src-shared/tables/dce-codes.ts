// The DC-e (layout 1.00, model 99) authority's answer codes as one table, shared by the DC-e kind (what each
// answer means), the DC-e authority port and the sandbox (the codes and texts it answers with).
// Codes 100–703 follow the numbering the DC-e shares with the NF-e/CT-e family (the "Tabela de códigos de erros e
// descrições de mensagens de erros" of the MOC NF-e/CT-e); the DC-e's own MOC rule annex is not in our reference
// data, so their DC-e wording below is ours, written after the NF-e/CT-e texts. Codes 580–584 are the sandbox's
// own numbering for DC-e business rules whose official numbers could not be confirmed: NOT official.
import { answerCodeLookup } from './answer-codes.ts';

export type DceCodeMeaning =
  | 'authorized'
  /** Consultation of a DC-e whose cancellation is registered. */
  | 'cancelledAtAuthority'
  | 'inService'
  | 'paused'
  | 'eventRegistered'
  /** The authority already holds it (a DC-e with this key, or this event): consult to learn its protocol. */
  | 'duplicate'
  | 'notFound'
  | 'rejected';

export interface DceCode {
  code: string;
  /** The text the authority (and the sandbox) answer with, in Portuguese. */
  text: string;
  meaning: DceCodeMeaning;
}

/**
 * The "normal" cancellation period: 24 hours after the authorization (MOC DC-e, Visão Geral v1.0 §5.5; a UF
 * may take a late one as 155, which Balcão does not ask for). The kind refuses locally past it, the sandbox
 * answers `cancelDeadline` (501). See docs/dce.md, "Rules".
 */
export const DCE_CANCEL_DEADLINE_HOURS = 24;

/**
 * The sandbox refuses a dhEmi older than this (228): the DC-e is authorized before the goods travel, so an old
 * dhEmi is a declaration issued late; 7 days as the NF-e's authorizers allow a normal issue. Not official.
 */
export const DCE_MAX_DHEMI_AGE_HOURS = 168;

export const DCE_CODES = {
  authorized: { code: '100', text: 'Autorizado o uso da DC-e', meaning: 'authorized' },
  cancelledAtAuthority: {
    code: '101',
    text: 'Cancelamento de DC-e homologado',
    meaning: 'cancelledAtAuthority',
  },
  inService: { code: '107', text: 'Serviço em Operação', meaning: 'inService' },
  paused: { code: '108', text: 'Serviço Paralisado Momentaneamente (curto prazo)', meaning: 'paused' },
  pausedNoForecast: { code: '109', text: 'Serviço Paralisado sem Previsão', meaning: 'paused' },
  eventRegistered: {
    code: '135',
    text: 'Evento registrado e vinculado a DC-e',
    meaning: 'eventRegistered',
  },
  // The authority appends "[chDCe:…][nProt:…]" so the issuer can recover a DC-e whose answer it lost.
  duplicate: { code: '204', text: 'Rejeição: Duplicidade de DC-e', meaning: 'duplicate' },
  signerCnpj: {
    code: '213',
    text: 'Rejeição: CNPJ-Base do emissor da DC-e difere do CNPJ-Base do Certificado Digital',
    meaning: 'rejected',
  },
  messageSchema: { code: '215', text: 'Rejeição: Falha no schema XML', meaning: 'rejected' },
  notFound: {
    code: '217',
    text: 'Rejeição: DC-e não consta na base de dados da SEFAZ',
    meaning: 'notFound',
  },
  alreadyCancelled: {
    code: '218',
    text: 'Rejeição: DC-e já está cancelada na base de dados da SEFAZ',
    meaning: 'rejected',
  },
  protocolMismatch: {
    code: '222',
    text: 'Rejeição: Protocolo de Autorização de Uso difere do cadastrado',
    meaning: 'rejected',
  },
  dceSchema: { code: '225', text: 'Rejeição: Falha no Schema XML da DC-e', meaning: 'rejected' },
  dhEmiTooOld: { code: '228', text: 'Rejeição: Data de Emissão muito atrasada', meaning: 'rejected' },
  environment: {
    code: '252',
    text: 'Rejeição: Ambiente informado diverge do Ambiente de recebimento',
    meaning: 'rejected',
  },
  signature: { code: '297', text: 'Rejeição: Assinatura difere do calculado', meaning: 'rejected' },
  cancelCancelled: {
    code: '420',
    text: 'Rejeição: Cancelamento para DC-e já cancelada',
    meaning: 'rejected',
  },
  cancelDeadline: {
    code: '501',
    text: 'Rejeição: Prazo de Cancelamento superior ao previsto na Legislação',
    meaning: 'rejected',
  },
  accessKey: {
    code: '502',
    text: 'Rejeição: Erro na Chave de Acesso - Campo Id não corresponde à concatenação dos campos correspondentes',
    meaning: 'rejected',
  },
  duplicateOtherKey: {
    code: '539',
    text: 'Rejeição: Duplicidade de DC-e, com diferença na Chave de Acesso',
    meaning: 'rejected',
  },
  // The sandbox answers a repeated event (same Id) with its first registration (135) instead; an authority
  // that answers 573 holds the event, so consulting the DC-e gives its outcome.
  duplicateEvent: { code: '573', text: 'Rejeição: Duplicidade de Evento', meaning: 'duplicate' },
  eventBeforeIssue: {
    code: '577',
    text: 'Rejeição: A data do evento não pode ser menor que a data de emissão da DC-e',
    meaning: 'rejected',
  },
  eventInFuture: {
    code: '578',
    text: 'Rejeição: A data do evento não pode ser maior que a data do processamento',
    meaning: 'rejected',
  },
  dhEmiFuture: {
    code: '703',
    text: 'Rejeição: Data-Hora de Emissão posterior ao horário de recebimento',
    meaning: 'rejected',
  },

  // The sandbox's own numbering (see the head of this file): NOT official.
  issuerGroup: {
    code: '580',
    text: 'Rejeição: Grupo do emissor (Marketplace ou Transportadora) ausente ou diferente do tipo de emitente (tpEmit)',
    meaning: 'rejected',
  },
  carrierCnpj: {
    code: '581',
    text: 'Rejeição: CNPJ da transportadora (CNPJTransp) obrigatório para transporte por transportadora (modTrans 2)',
    meaning: 'rejected',
  },
  totalValue: {
    code: '582',
    text: 'Rejeição: Valor total da DC-e (vDC) difere do somatório dos valores dos itens (vProd)',
    meaning: 'rejected',
  },
  itemValue: {
    code: '583',
    text: 'Rejeição: Valor do item (vProd) difere do produto da quantidade (qCom) pelo valor unitário (vUnCom)',
    meaning: 'rejected',
  },
  qrCode: {
    code: '584',
    text: 'Rejeição: QR-Code da DC-e difere da chave de acesso ou do ambiente',
    meaning: 'rejected',
  },
} as const satisfies Record<string, DceCode>;

export type DceCodeName = keyof typeof DCE_CODES;

const LOOKUP = answerCodeLookup<DceCode>(DCE_CODES, 'rejected');

/** The entry of a code, or undefined for a code this table does not know (treated as a rejection). */
export const dceCode = LOOKUP.entry;
/** What a code means; an unknown code is a rejection (the safe meaning: nothing is settled by it). */
export const dceCodeMeaning = LOOKUP.meaning;
/** The table's text of a code, or undefined when the table does not know it. */
export const dceCodeText = LOOKUP.text;

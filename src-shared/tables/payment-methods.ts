// Meios de pagamento (tPag, MOC 7.0 annex I, NT 2020.006 and NT 2023.004) and the seed's spelling-B names.

export const TPAG = {
  '01': 'Dinheiro',
  '02': 'Cheque',
  '03': 'Cartão de Crédito',
  '04': 'Cartão de Débito',
  '05': 'Crédito Loja',
  '10': 'Vale Alimentação',
  '11': 'Vale Refeição',
  '12': 'Vale Presente',
  '13': 'Vale Combustível',
  '15': 'Boleto Bancário',
  '16': 'Depósito Bancário',
  '17': 'Pagamento Instantâneo (PIX) – Dinâmico',
  '18': 'Transferência bancária, Carteira Digital',
  '19': 'Programa de fidelidade, Cashback, Crédito Virtual',
  '20': 'Pagamento Instantâneo (PIX) – Estático',
  '21': 'Crédito em Loja',
  '22': 'Pagamento Eletrônico não Informado - falha de hardware do sistema emissor',
  '90': 'Sem pagamento',
  '99': 'Outros',
} as const;
export type TPag = keyof typeof TPAG;

/** Spelling B (`metodo`) names → tPag. */
export const PAYMENT_METHOD_NAMES: Readonly<Record<string, TPag>> = {
  dinheiro: '01',
  cheque: '02',
  cartao_credito: '03',
  cartao_debito: '04',
  credito_loja: '05',
  vale_alimentacao: '10',
  vale_refeicao: '11',
  vale_presente: '12',
  vale_combustivel: '13',
  boleto: '15',
  deposito: '16',
  pix: '17',
  pix_dinamico: '17',
  transferencia: '18',
  carteira_digital: '18',
  fidelidade: '19',
  cashback: '19',
  pix_estatico: '20',
  credito_em_loja: '21',
  falha_hardware: '22',
  sem_pagamento: '90',
  outros: '99',
};

/** Card groups (`card`) are required for these in NFC-e (NT 2015.002 / MOC 7.0 YA04). */
export const CARD_TPAG: ReadonlySet<string> = new Set(['03', '04', '17']);

export function isTPag(code: string): code is TPag {
  return Object.hasOwn(TPAG, code);
}

/** Accepts a tPag code ('01') or a spelling-B name ('dinheiro'). */
export function resolveTPag(value: string): TPag | undefined {
  const v = value.trim().toLowerCase();
  if (isTPag(v)) return v;
  if (/^\d$/.test(v) && isTPag(`0${v}`)) return `0${v}` as TPag;
  return PAYMENT_METHOD_NAMES[v];
}

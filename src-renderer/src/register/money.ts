// Register amounts between the screen (pt-BR text, bigint cents) and the API (decimal text in requests,
// JSON numbers in answers). JSON numbers are read through their text, never added as floats.
import { brl } from '../format.ts';

/** 12345n → "123.45" (the request's decimal text). */
export function centsToDecimal(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** A money JSON number of an answer (at most two decimals) → cents, through its decimal text. */
export function numberToCents(value: number | null | undefined): bigint {
  if (value === null || value === undefined || !Number.isFinite(value)) return 0n;
  const [whole = '0', frac = ''] = value.toFixed(2).replace('-', '').split('.');
  const cents = BigInt(whole) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
  return value < 0 ? -cents : cents;
}

/** "R$ 1.234,56", a negative as "-R$ 10,00" (as the printed shift report writes a shortfall). */
export function brlNumber(value: number | null | undefined): string {
  const cents = numberToCents(value);
  return cents < 0n ? `-${brl(-cents)}` : brl(cents);
}

/** The methods counted at closing, in the order a cashier counts them (spelling-B names). */
export const COUNTED_METHODS: readonly { metodo: string; label: string }[] = [
  { metodo: 'dinheiro', label: 'Dinheiro' },
  { metodo: 'cartao_credito', label: 'Cartão de crédito' },
  { metodo: 'cartao_debito', label: 'Cartão de débito' },
  { metodo: 'pix', label: 'PIX' },
  { metodo: 'outros', label: 'Outros' },
];

const LABELS: Record<string, string> = {
  ...Object.fromEntries(COUNTED_METHODS.map((m) => [m.metodo, m.label])),
  cheque: 'Cheque',
  credito_loja: 'Crédito loja',
  vale_alimentacao: 'Vale alimentação',
  vale_refeicao: 'Vale refeição',
  vale_presente: 'Vale presente',
  vale_combustivel: 'Vale combustível',
  boleto: 'Boleto',
  deposito: 'Depósito',
  transferencia: 'Transferência',
  fidelidade: 'Fidelidade',
  credito_em_loja: 'Crédito em loja',
  sem_pagamento: 'Sem pagamento',
  pix_estatico: 'PIX estático',
};

export function methodName(metodo: string): string {
  return LABELS[metodo] ?? metodo;
}

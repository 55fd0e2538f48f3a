// Fixed wording of the printed fiscal documents (MOC 7.0 annex II for the DANFE, Manual de Especificações
// Técnicas do DANFE NFC-e e QR Code v6.0 for the DANFCe), kept as tables in one place.
import { TPAG, isTPag } from '../../../src-shared/tables/payment-methods.ts';
import type { OutputDetPag } from '../model.ts';

export const HOMOLOGACAO_NOTICE = 'EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL';
export const CONTINGENCY_NOTICE = 'EMITIDA EM CONTINGÊNCIA';
export const PENDING_NOTICE = 'Pendente de autorização';

/** tpEmis (ide B22) → the contingency mode named on the document; 1 (normal) has none. */
export const TP_EMIS_MODE: Readonly<Record<string, string>> = {
  '2': 'FS-IA',
  '3': 'SCAN',
  '4': 'EPEC',
  '5': 'FS-DA',
  '6': 'SVC-AN',
  '7': 'SVC-RS',
  '9': 'OFF-LINE',
};

/** "EMITIDA EM CONTINGÊNCIA (SVC-AN)", or null for normal emission. */
export function contingencyNotice(tpEmis: string): string | null {
  if (tpEmis === '1') return null;
  const mode = TP_EMIS_MODE[tpEmis];
  return mode === undefined ? CONTINGENCY_NOTICE : `${CONTINGENCY_NOTICE} (${mode})`;
}

/** modFrete (transp X02) as the DANFE box "FRETE POR CONTA" shows it. */
export const MOD_FRETE: Readonly<Record<string, string>> = {
  '0': '0 - Remetente (CIF)',
  '1': '1 - Destinatário (FOB)',
  '2': '2 - Terceiros',
  '3': '3 - Próprio Remetente',
  '4': '4 - Próprio Destinatário',
  '9': '9 - Sem Transporte',
};

/** The payment's name: xPag when the emitter described it (tPag 99), else the tPag table's name. */
export function paymentName(p: Pick<OutputDetPag, 'tPag' | 'xPag'>): string {
  if (p.xPag !== null && p.xPag !== '') return p.xPag;
  return isTPag(p.tPag) ? TPAG[p.tPag] : p.tPag;
}

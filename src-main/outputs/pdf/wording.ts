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

// --- DACTE (MOC CT-e 4.00, anexo II "leiaute do DACTE"; code tables of cteTiposBasico_v4.00.xsd) ---------

/** The CT-e is "o conhecimento": its notices are in the masculine. */
export const CTE_HOMOLOGACAO_NOTICE = 'CT-E EMITIDO EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL';
export const CTE_CONTINGENCY_NOTICE = 'EMITIDO EM CONTINGÊNCIA';
export const CTE_UNAUTHORIZED_NOTICE = 'CT-e sem autorização de uso';
export const CTE_LEGISLATION_NOTICE =
  'ESTE CONHECIMENTO DE TRANSPORTE ATENDE À LEGISLAÇÃO DE TRANSPORTE RODOVIÁRIO EM VIGOR';
export const CTE_RECEIPT_DECLARATION =
  'DECLARO QUE RECEBI OS VOLUMES DESTE CONHECIMENTO EM PERFEITO ESTADO PELO QUE DOU POR CUMPRIDO O PRESENTE CONTRATO DE TRANSPORTE';

/** tpEmis of a CT-e (TCTe ide/tpEmis): 1 normal has no mode; 4 EPEC, 5 FS-DA, 7 SVC-RS, 8 SVC-SP. */
export const CTE_TP_EMIS_MODE: Readonly<Record<string, string>> = {
  '4': 'EPEC',
  '5': 'FS-DA',
  '7': 'SVC-RS',
  '8': 'SVC-SP',
};

/** "EMITIDO EM CONTINGÊNCIA (SVC-RS)", or null for normal emission. */
export function cteContingencyNotice(tpEmis: string): string | null {
  if (tpEmis === '1') return null;
  const mode = CTE_TP_EMIS_MODE[tpEmis];
  return mode === undefined ? CTE_CONTINGENCY_NOTICE : `${CTE_CONTINGENCY_NOTICE} (${mode})`;
}

export const CTE_MODAL: Readonly<Record<string, string>> = {
  '01': 'RODOVIÁRIO',
  '02': 'AÉREO',
  '03': 'AQUAVIÁRIO',
  '04': 'FERROVIÁRIO',
  '05': 'DUTOVIÁRIO',
  '06': 'MULTIMODAL',
};

/** tpCTe (2 anulação exists only in the layouts before 4.00, still printed for old documents). */
export const CTE_TP_CTE: Readonly<Record<string, string>> = {
  '0': 'NORMAL',
  '1': 'COMPLEMENTO DE VALORES',
  '2': 'ANULAÇÃO',
  '3': 'SUBSTITUTO',
};

export const CTE_TP_SERV: Readonly<Record<string, string>> = {
  '0': 'NORMAL',
  '1': 'SUBCONTRATAÇÃO',
  '2': 'REDESPACHO',
  '3': 'REDESPACHO INTERMEDIÁRIO',
  '4': 'SERVIÇO VINCULADO A MULTIMODAL',
};

export const CTE_TOMA: Readonly<Record<string, string>> = {
  '0': 'REMETENTE',
  '1': 'EXPEDIDOR',
  '2': 'RECEBEDOR',
  '3': 'DESTINATÁRIO',
  '4': 'OUTROS',
};

/** infQ/cUnid. */
export const CTE_UNIDADE: Readonly<Record<string, string>> = {
  '00': 'M3',
  '01': 'KG',
  '02': 'TON',
  '03': 'UNIDADE',
  '04': 'LITROS',
  '05': 'MMBTU',
};

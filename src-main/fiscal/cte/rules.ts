// Business rules checked before a CT-e is signed, so the authority never sees a document it would refuse.
// Each fault carries the rejection code the authority would answer with.
//
// The rejection texts: the sped-cte cstat.json of the reference data holds, for 512, 522 and 529, the NF-e
// texts ("CNPJ do Local de Retirada inválido", "CFOP de Operação Estadual e UF emitente difere da UF
// remetente...", "NCM de informação obrigatória...") — that file is a copy of the NF-e table from 2017, not
// the CT-e MOC's. The texts below describe the CT-e rule and are to be replaced by the MOC CT-e 4.00
// wording once a CT-e cStat table is part of the reference data.
import { isValidAccessKey } from '../access-key.ts';
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';

export interface CteFault extends ErrorDetail {
  /** The authority's rejection code for this rule, when it is one. */
  cStat?: string;
}

export const CTE_REJECTIONS = {
  '512': 'Rejeição: Valor total do serviço difere do somatório dos componentes do valor da prestação',
  '522': 'Rejeição: CFOP inválido para a prestação (5xxx dentro do estado, 6xxx entre estados)',
  '529': 'Rejeição: Chave de acesso de NF-e referenciada ausente ou inválida',
} as const;
export type CteRejectionCode = keyof typeof CTE_REJECTIONS;

function rejection(field: string, cStat: CteRejectionCode): CteFault {
  return { field, error: CTE_REJECTIONS[cStat], cStat };
}

/** 512: valorTotal (vTPrest) must equal the sum of componentesValor (Comp/vComp), in cents. */
export function checkComponentsTotal(valorTotal: bigint, componentes: readonly bigint[]): CteFault[] {
  const total = componentes.reduce((a, b) => a + b, 0n);
  return total === valorTotal ? [] : [rejection('valorTotal', '512')];
}

/**
 * 522: the CFOP's first digit says where the service is provided: 5 within the state (UFIni = UFFim),
 * 6 between states.
 */
export function checkCfop(cfop: string, ufIni: string, ufFim: string): CteFault[] {
  const expected = ufIni === ufFim ? '5' : '6';
  return cfop.startsWith(expected) ? [] : [rejection('cfop', '522')];
}

/** 529: at least one carried NF-e, and every key 44 positions with a right check digit and model 55. */
export function checkNfeKeys(keys: readonly (string | undefined)[]): CteFault[] {
  if (keys.length === 0) return [rejection('docsOriginarios', '529')];
  const faults: CteFault[] = [];
  keys.forEach((key, i) => {
    const ok = key !== undefined && isValidAccessKey(key) && key.slice(20, 22) === '55';
    if (!ok) faults.push(rejection(`docsOriginarios[${i}]`, '529'));
  });
  return faults;
}

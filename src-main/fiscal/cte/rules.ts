// Business rules checked before a CT-e is signed, so the authority never sees a document it would refuse.
// Each fault carries the rejection code the authority would answer with.
//
// The codes are the specification's (§7, "CT-e rejections": 512 total differs from the sum of
// componentesValor, 522 invalid CFOP, 529 invalid or nonexistent referenced NF-e key). Their texts are not
// official yet: the sped-cte cstat.json of the reference data gives, for these three codes, NF-e texts
// ("CNPJ do Local de Retirada inválido", "CFOP de Operação Estadual e UF emitente difere da UF remetente...",
// "NCM de informação obrigatória...") because that file is the NF-e table of 2017, and a public transcription
// of the MOC CT-e validation rules (katrid/brasil, brasil/dfe/cte/rejections.py) lists other codes for these
// checks (519/676 CFOP, 843 transported NF-e key). The texts below say the specification's rule in the
// authority's style; replace them, and check the codes, once the MOC CT-e 4.00 table is in the reference data.
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

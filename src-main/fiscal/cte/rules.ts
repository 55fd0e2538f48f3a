// Business rules checked before a CT-e is signed, so the authority never sees a document it would refuse.
// Each fault carries the rejection code the authority would answer with.
//
// 512, 522 and 529 are the specification's codes (§7, "CT-e rejections": 512 total differs from the sum of
// componentesValor, 522 invalid CFOP, 529 invalid or nonexistent referenced NF-e key). In the MOC CT-e 4.00
// table those numbers name other rules (512 the recipient of a substitute CT-e, 529 a multimodal cancel, 522
// none), the authority checks the same facts under 676/519 (CFOP) and 843 (transported NF-e key), and no
// official rule compares vTPrest with the sum of Comp/vComp. So the codes stay the specification's and their
// texts are ours, in the authority's style: the same texts as the sandbox authority's table
// (sandbox/cte/cstat.ts; this core does not import the sandbox, a test compares the two).
//
// 531 and 588 are official MOC CT-e 4.00 rules (validation G048 and G010, as transcribed in katrid/brasil
// brasil/dfe/cte/rejections.py), with their texts.
import { isValidAccessKey } from '../access-key.ts';
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';

export interface CteFault extends ErrorDetail {
  /** The authority's rejection code for this rule, when it is one. */
  cStat?: string;
}

export const CTE_REJECTIONS = {
  '512': 'Rejeição: Valor total da prestação (vTPrest) difere do somatório dos componentes do valor (vComp)',
  '522':
    'Rejeição: CFOP inválido para a prestação: 5xxx dentro do estado (UFIni = UFFim), 6xxx entre estados',
  '529':
    'Rejeição: Chave de acesso de NF-e transportada ausente ou inválida (dígito verificador ou modelo diferente de 55)',
  '531': 'Rejeição: Valor a receber deve ser menor ou igual Valor da Prestação',
  '588': 'Rejeição: Data de entrada em contingência posterior a data de emissão.',
} as const;
export type CteRejectionCode = keyof typeof CTE_REJECTIONS;

export function rejection(field: string, cStat: CteRejectionCode): CteFault {
  return { field, error: CTE_REJECTIONS[cStat], cStat };
}

/** 512: valorTotal (vTPrest) must equal the sum of componentesValor (Comp/vComp), in cents. */
export function checkComponentsTotal(valorTotal: bigint, componentes: readonly bigint[]): CteFault[] {
  const total = componentes.reduce((a, b) => a + b, 0n);
  return total === valorTotal ? [] : [rejection('valorTotal', '512')];
}

/** 531: the amount to receive (vRec) cannot exceed the value of the service (vTPrest). */
export function checkAmountToReceive(vRec: bigint, vTPrest: bigint): CteFault[] {
  return vRec <= vTPrest ? [] : [rejection('valorReceber', '531')];
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

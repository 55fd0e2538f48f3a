// Sandbox authority rules on the note's content: CFOP against the operation (idDest, tpNF, NFC-e), payments (vTroco) and freight, infRespTec.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { Element } from '@xmldom/xmldom';
import { isValidCnpj } from '../../../src-shared/tax-ids.ts';
import { dhEmiLocalDate } from '../../fiscal/access-key.ts';
import { cfopRuleBroken, hashCsrt, respTecRequirement } from '../../fiscal/operation-rules.ts';
import type { NoteRule } from '../services/authorization.ts';
import { cents } from '../services/common.ts';
import { at, children, textAt } from '../xml.ts';

const numeric = <T extends number>(text: string | undefined, allowed: readonly T[]): T | undefined =>
  allowed.find((v) => String(v) === text);

/** The note's day in its emitter's UF (dhEmi carries the UF's offset), YYYY-MM-DD. */
function localDay(dhEmi: string): string {
  const d = dhEmiLocalDate(dhEmi);
  return d === undefined
    ? dhEmi.slice(0, 10)
    : `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

function pagCents(inf: Element): {
  paid: number;
  cash: number;
  allSemPagamento: boolean;
  vTroco: number | null;
} {
  const pag = at(inf, 'pag');
  const detPag = pag === undefined ? [] : children(pag, 'detPag');
  let paid = 0;
  let cash = 0;
  for (const p of detPag) {
    const v = cents(textAt(p, 'vPag') ?? '0');
    paid += v;
    if (textAt(p, 'tPag') === '01') cash += v;
  }
  const troco = pag === undefined ? undefined : textAt(pag, 'vTroco');
  return {
    paid,
    cash,
    allSemPagamento: detPag.length > 0 && detPag.every((p) => textAt(p, 'tPag') === '90'),
    vTroco: troco === undefined ? null : cents(troco),
  };
}

export const OPERATION_RULES: readonly NoteRule[] = [
  {
    rule: 'CFOP × operação (I08): entrada em NF-e de saída (518), saída em NF-e de entrada (519), NFC-e fora da lista I08-150 (725), escopo do CFOP × idDest (731/732/733)',
    codes: [518, 519, 725, 731, 732, 733],
    check: (n) => {
      const mod = numeric(n.ide.mod, [55, 65] as const);
      const tpNF = numeric(n.ide.tpNF, [0, 1] as const);
      const idDest = numeric(textAt(n.inf, 'ide/idDest'), [1, 2, 3] as const);
      if (mod === undefined || tpNF === undefined || idDest === undefined) return null;
      for (const det of children(n.inf, 'det')) {
        const cfop = textAt(det, 'prod/CFOP') ?? '';
        const broken = cfopRuleBroken(cfop, mod, tpNF, idDest);
        if (broken !== null) return { cStat: broken, detail: `[nItem:${det.getAttribute('nItem') ?? ''}]` };
      }
      return null;
    },
  },
  {
    rule: 'NFC-e com frete (X02): modFrete ≠ 9 fora da entrega a domicílio (indPres 4), ou vFrete com modFrete 9',
    codes: [753],
    check: (n) => {
      if (n.ide.mod !== '65') return null;
      const modFrete = textAt(n.inf, 'transp/modFrete');
      const indPres = textAt(n.inf, 'ide/indPres');
      if (modFrete !== '9' && indPres !== '4') return { cStat: 753 };
      // Own reading: freight charged "sem ocorrência de transporte" is the same contradiction.
      const vFrete = cents(textAt(n.inf, 'total/ICMSTot/vFrete') ?? '0');
      return modFrete === '9' && vFrete > 0 ? { cStat: 753 } : null;
    },
  },
  {
    rule: 'Pagamentos (NT 2016.002): total pago < vNF (865), pago > vNF sem vTroco (866), vTroco ≠ Σ vPag − vNF ou maior que o pago em dinheiro (869)',
    codes: [865, 866, 869],
    check: (n) => {
      const { paid, cash, allSemPagamento, vTroco } = pagCents(n.inf);
      // YA02 (finNFe 3/4): "sem pagamento" carries vPag 0 and no balance.
      if (allSemPagamento) return null;
      const vNF = cents(n.vNF);
      if (paid < vNF) return { cStat: 865 };
      if (paid > vNF && vTroco === null) return { cStat: 866 };
      if (vTroco !== null && vTroco !== paid - vNF) return { cStat: 869 };
      // Own reading of YA09: the change is handed back in cash, so it cannot exceed the cash paid.
      if (vTroco !== null && vTroco > cash) return { cStat: 869 };
      return null;
    },
  },
  {
    rule: 'Responsável técnico (NT 2018.005): grupo exigido pela UF (972), CNPJ válido (973), CSRT exigido (975), idCSRT cadastrado (976) e não revogado (977), hashCSRT (978)',
    codes: [972, 973, 975, 976, 977, 978],
    check: (n, env) => {
      const uf = textAt(n.inf, 'emit/enderEmit/UF') ?? '';
      const mod = numeric(n.ide.mod, [55, 65] as const) ?? 55;
      const tpAmb = numeric(n.ide.tpAmb, [1, 2] as const) ?? 2;
      const needs = respTecRequirement(uf, mod, tpAmb, localDay(n.ide.dhEmi));
      const group = at(n.inf, 'infRespTec');
      if (group === undefined) return needs.group ? { cStat: 972 } : null;
      const cnpj = textAt(group, 'CNPJ') ?? '';
      if (!isValidCnpj(cnpj) || /^0+$/.test(cnpj)) return { cStat: 973 };
      const idCSRT = textAt(group, 'idCSRT');
      const hash = textAt(group, 'hashCSRT');
      // ZD07-10 exception: not for SVC contingency (tpEmis 6/7).
      const svc = n.ide.tpEmis === '6' || n.ide.tpEmis === '7';
      if (idCSRT === undefined || hash === undefined) return needs.csrt && !svc ? { cStat: 975 } : null;
      const registered = env.csrts.find((c) => c.id_csrt === idCSRT);
      if (registered === undefined) return { cStat: 976 };
      if (registered.revoked === 1) return { cStat: 977 };
      return hashCsrt(registered.token, n.chave) === hash ? null : { cStat: 978 };
    },
  },
];

// Sandbox authority rules on the note's content: Devolução (impostoDevol), cobrança (fat/dup) and transport groups.
// Each rule names the MOC 7.0 / NT 2016.002 v1.60 rejection it implements; the first finding rejects the note.
import type { Element } from '@xmldom/xmldom';
import { ieProblem } from '../../../src-shared/ie.ts';
import { isValidCnpj, isValidCpf } from '../../../src-shared/tax-ids.ts';
import { isUf } from '../../../src-shared/uf.ts';
import type { NoteRule } from '../services/authorization.ts';
import { at, children, textAt } from '../xml.ts';

/** Money text of the note in cents (schema-valid, so digits and at most two decimals). */
function centsOf(text: string | undefined): bigint {
  if (text === undefined || text === '') return 0n;
  const [int = '0', frac = ''] = text.split('.');
  return BigInt(int) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
}

const dets = (inf: Element) => children(inf, 'det');
const dups = (inf: Element) => {
  const cobr = at(inf, 'cobr');
  return cobr === undefined ? [] : children(cobr, 'dup');
};

export const DOCUMENTS_RULES: readonly NoteRule[] = [
  {
    rule: 'UA01-10: grupo impostoDevol só em NF-e de devolução (finNFe = 4)',
    codes: [354],
    check: (n) =>
      n.ide.finNFe !== '4' && dets(n.inf).some((d) => at(d, 'impostoDevol') !== undefined)
        ? { cStat: 354 }
        : null,
  },
  {
    rule: 'W12a-10: total vIPIDevol igual à soma de impostoDevol/IPI/vIPIDevol dos itens',
    codes: [863],
    check: (n) => {
      const items = dets(n.inf).reduce((s, d) => s + centsOf(textAt(d, 'impostoDevol/IPI/vIPIDevol')), 0n);
      return centsOf(textAt(n.inf, 'total/ICMSTot/vIPIDevol')) === items ? null : { cStat: 863 };
    },
  },
  {
    rule: 'X02-20: operação interestadual (idDest = 2) sem veicTransp nem reboque',
    codes: [868],
    check: (n) => {
      if (textAt(n.inf, 'ide/idDest') !== '2') return null;
      const transp = at(n.inf, 'transp');
      if (transp === undefined) return null;
      return at(transp, 'veicTransp') !== undefined || children(transp, 'reboque').length > 0
        ? { cStat: 868 }
        : null;
    },
  },
  {
    rule: 'X03-10: NFC-e informa o transportador só na entrega a domicílio (indPres = 4)',
    codes: [754],
    check: (n) =>
      n.ide.mod === '65' &&
      at(n.inf, 'transp/transporta') !== undefined &&
      textAt(n.inf, 'ide/indPres') !== '4'
        ? { cStat: 754 }
        : null,
  },
  {
    rule: 'X18-10: NFC-e sem veículo de transporte',
    codes: [756],
    check: (n) =>
      n.ide.mod === '65' && at(n.inf, 'transp/veicTransp') !== undefined ? { cStat: 756 } : null,
  },
  {
    rule: 'X04/X05: CNPJ ou CPF do transportador com dígito verificador válido',
    codes: [542, 543],
    check: (n) => {
      const cnpj = textAt(n.inf, 'transp/transporta/CNPJ');
      if (cnpj !== undefined && !isValidCnpj(cnpj)) return { cStat: 542 };
      const cpf = textAt(n.inf, 'transp/transporta/CPF');
      return cpf !== undefined && !isValidCpf(cpf) ? { cStat: 543 } : null;
    },
  },
  {
    rule: 'X07: IE do transportador exige a UF (559) e tem o dígito verificador da UF (544)',
    codes: [559, 544],
    check: (n) => {
      const ie = textAt(n.inf, 'transp/transporta/IE');
      if (ie === undefined || ie === 'ISENTO') return null;
      const uf = textAt(n.inf, 'transp/transporta/UF');
      if (uf === undefined) return { cStat: 559 };
      return isUf(uf) && ieProblem(uf, ie) !== null ? { cStat: 544 } : null;
    },
  },
  {
    rule: 'Y01-10: NFC-e sem grupo de cobrança',
    codes: [760],
    check: (n) => (n.ide.mod === '65' && at(n.inf, 'cobr') !== undefined ? { cStat: 760 } : null),
  },
  {
    rule: 'Y01-20: grupo cobr com fat completo (nFat, vOrig, vDesc, vLiq)',
    codes: [905],
    check: (n) => {
      if (at(n.inf, 'cobr') === undefined) return null;
      const complete = ['nFat', 'vOrig', 'vDesc', 'vLiq'].every(
        (t) => textAt(n.inf, `cobr/fat/${t}`) !== undefined,
      );
      return complete ? null : { cStat: 905 };
    },
  },
  {
    rule: 'Y05-10 (901), Y06-10 (902), Y06-20 (897): vDesc ≤ vOrig, vLiq = vOrig − vDesc, vLiq ≤ vNF',
    codes: [901, 902, 897],
    check: (n) => {
      const fat = at(n.inf, 'cobr/fat');
      if (fat === undefined) return null;
      const vOrig = textAt(fat, 'vOrig');
      const vLiq = textAt(fat, 'vLiq');
      const vDesc = centsOf(textAt(fat, 'vDesc'));
      if (vOrig !== undefined && vDesc > centsOf(vOrig)) return { cStat: 901 };
      if (vOrig !== undefined && vLiq !== undefined && centsOf(vLiq) !== centsOf(vOrig) - vDesc)
        return { cStat: 902 };
      const billed = vLiq ?? vOrig;
      return billed !== undefined && centsOf(billed) > centsOf(n.vNF) ? { cStat: 897 } : null;
    },
  },
  {
    rule: 'Y08-10: nDup com 3 algarismos, sequenciais e consecutivos (001, 002...)',
    codes: [852],
    check: (n) => {
      const bad = dups(n.inf).findIndex((d, i) => textAt(d, 'nDup') !== String(i + 1).padStart(3, '0'));
      return bad < 0 ? null : { cStat: 852, detail: `[nOcor:${String(bad + 1)}]` };
    },
  },
  {
    rule: 'Y09-20 (900) e Y09-30 (850): dVenc informado, não anterior à emissão nem à parcela anterior',
    codes: [900, 850],
    check: (n) => {
      // The emission date as the emitter wrote it (dhEmi carries its own offset).
      const emitted = n.ide.dhEmi.slice(0, 10);
      let previous: string | undefined;
      for (const [i, d] of dups(n.inf).entries()) {
        const dVenc = textAt(d, 'dVenc');
        const nOcor = `[nOcor:${String(i + 1)}]`;
        if (dVenc === undefined || dVenc < emitted) return { cStat: 900, detail: nOcor };
        if (previous !== undefined && dVenc < previous) return { cStat: 850, detail: nOcor };
        previous = dVenc;
      }
      return null;
    },
  },
  {
    rule: 'Y10-10: soma de vDup igual a vLiq da fatura',
    codes: [851],
    check: (n) => {
      const list = dups(n.inf);
      const vLiq = textAt(n.inf, 'cobr/fat/vLiq');
      if (list.length === 0 || vLiq === undefined) return null;
      const total = list.reduce((s, d) => s + centsOf(textAt(d, 'vDup')), 0n);
      return total === centsOf(vLiq) ? null : { cStat: 851 };
    },
  },
];

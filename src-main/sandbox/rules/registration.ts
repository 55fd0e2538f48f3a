// Sandbox authority rules on the note's content: IE of the emitter and the recipient (check digits per UF, ISENTO).
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { Element } from '@xmldom/xmldom';
import { ieProblem } from '../../../src-shared/ie.ts';
import { EXEMPT_ICMS_CODES, UFS_WITHOUT_ISENTO } from '../../../src-shared/tables/ie-isento.ts';
import { isUf } from '../../../src-shared/uf.ts';
import type { NoteRule } from '../services/authorization.ts';
import { at, children, textAt } from '../xml.ts';

/** The ICMS group of each item (ICMS00, ICMSSN102, …), as written. */
function icmsGroups(inf: Element): Element[] {
  return children(inf, 'det').flatMap((det) => {
    const icms = at(det, 'imposto/ICMS');
    return icms === undefined ? [] : children(icms).slice(0, 1);
  });
}

/**
 * Exceptions of rule 805: an item with ICMS-ST (vICMSST > 0) or ST retained earlier (vICMSSTRet, groups
 * ICMS60/ICMSSN500), or every item exempt, immune or untaxed (CST 40/41, CSOSN 103/300/400).
 */
function isentoAllowedByItems(inf: Element): boolean {
  const groups = icmsGroups(inf);
  const positive = (g: Element, tag: string) => Number(textAt(g, tag) ?? '0') > 0;
  const st = groups.some(
    (g) =>
      positive(g, 'vICMSST') ||
      textAt(g, 'vICMSSTRet') !== undefined ||
      g.localName === 'ICMS60' ||
      g.localName === 'ICMSSN500',
  );
  const code = (g: Element) => textAt(g, 'CST') ?? textAt(g, 'CSOSN') ?? '';
  return st || (groups.length > 0 && groups.every((g) => EXEMPT_ICMS_CODES.has(code(g))));
}

export const REGISTRATION_RULES: readonly NoteRule[] = [
  {
    // MOC 7.0 C17: the literal ISENTO is for the NF-e Avulsa the tax office issues (group `avulsa`) to a
    // taxpayer exempt from registration; any other emitter is a registered ICMS contributor with an IE.
    rule: 'IE do emitente: dígito verificador pelo algoritmo da UF; ISENTO só na NF-e Avulsa',
    codes: [209],
    check: (n) => {
      const uf = textAt(n.inf, 'emit/enderEmit/UF');
      if (n.emit.IE === 'ISENTO') return at(n.inf, 'avulsa') === undefined ? { cStat: 209 } : null;
      return isUf(uf) && ieProblem(uf, n.emit.IE) !== null ? { cStat: 209 } : null;
    },
  },
  {
    rule: 'NFC-e não informa a IE do destinatário',
    codes: [729],
    check: (n) => (n.ide.mod === '65' && n.dest?.IE !== undefined ? { cStat: 729 } : null),
  },
  {
    rule: 'Destinatário isento de inscrição (indIEDest = 2) sem a tag IE',
    codes: [791],
    check: (n) => (n.dest?.indIEDest === '2' && n.dest.IE !== undefined ? { cStat: 791 } : null),
  },
  {
    // MOC E16a-30 (NT 2015.003): internal and interstate operations; the UFs every version lists.
    rule: 'Destinatário isento de inscrição (indIEDest = 2) em UF que não o admite, salvo ST ou operação isenta',
    codes: [805],
    check: (n) => {
      const uf = textAt(n.inf, 'dest/enderDest/UF');
      const idDest = textAt(n.inf, 'ide/idDest');
      if (n.dest?.indIEDest !== '2' || uf === undefined || !UFS_WITHOUT_ISENTO.has(uf)) return null;
      if (idDest !== '1' && idDest !== '2') return null;
      return isentoAllowedByItems(n.inf) ? null : { cStat: 805 };
    },
  },
  {
    rule: 'IE do destinatário: dígito verificador pelo algoritmo da UF do destinatário',
    codes: [210],
    check: (n) => {
      const uf = textAt(n.inf, 'dest/enderDest/UF');
      const ie = n.dest?.IE;
      if (ie === undefined || !isUf(uf)) return null;
      return ieProblem(uf, ie) === null ? null : { cStat: 210 };
    },
  },
];

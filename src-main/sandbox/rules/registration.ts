// Sandbox authority rules on the note's content: IE of the emitter and the recipient (check digits per UF, ISENTO).
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import { ieProblem } from '../../../src-shared/ie.ts';
import { isUf } from '../../../src-shared/uf.ts';
import type { NoteRule } from '../services/authorization.ts';
import { at, textAt } from '../xml.ts';

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

// Sandbox authority rules on the note's goods: the NCM of each item against the NCM table in force.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import { authorityNcmTable, NCM_NOT_GOODS } from '../../reference/ncm.ts';
import type { NoteRule } from '../services/authorization.ts';
import { children, textAt } from '../xml.ts';

export const GOODS_RULES: readonly NoteRule[] = [
  {
    // MOC 7.0 I05 (NCM): the code must exist in the NCM table; 00 is allowed for an item that is not goods.
    // The table is the current one of this process (the shipped table or the newest one the store imported).
    rule: 'NCM do item inexistente na tabela NCM (00 só para item que não é mercadoria)',
    codes: [778],
    check: (n) => {
      const table = authorityNcmTable();
      for (const [i, det] of children(n.inf, 'det').entries()) {
        const ncm = textAt(det, 'prod/NCM') ?? '';
        if (ncm !== NCM_NOT_GOODS && !table.has(ncm)) {
          return { cStat: 778, detail: `[nItem:${det.getAttribute('nItem') ?? String(i + 1)}]` };
        }
      }
      return null;
    },
  },
];

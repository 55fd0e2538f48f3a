// Group B (ide): identification of the note, MOC 7.0 annex I; PL_010 order.
import { ufBySigla } from '../../../src-shared/uf.ts';
import { formatDateTimeTz } from '../datetime.ts';
import { el, group, opt } from '../xml.ts';
import { idDestOf } from '../taxes/destination.ts';
import type { NfeModel } from './model.ts';

// idDest (B11a) is decided with the taxes (the ICMS rules read it); the writer and normalize take it from there.
export { idDestOf };

export function ideXml(model: NfeModel, cDV: number): string {
  const uf = ufBySigla(model.emit.enderEmit.UF);
  if (uf === undefined) throw new Error(`unknown emitter UF ${model.emit.enderEmit.UF}`);
  const dhEmi = formatDateTimeTz(model.dhEmi, uf.timeZone);
  const refs = model.NFref.map((key) => group('NFref', el('refNFe', key))).join('');
  return group(
    'ide',
    el('cUF', uf.cUF),
    el('cNF', model.cNF),
    el('natOp', model.natOp),
    el('mod', model.modelo),
    el('serie', model.serie),
    el('nNF', model.nNF),
    el('dhEmi', dhEmi),
    el('tpNF', model.tpNF),
    el('idDest', idDestOf(model)),
    el('cMunFG', model.emit.enderEmit.cMun),
    // 1 DANFE retrato for NF-e, 4 DANFE NFC-e (B21).
    el('tpImp', model.modelo === 65 ? 4 : 1),
    el('tpEmis', model.tpEmis),
    el('cDV', cDV),
    el('tpAmb', model.tpAmb),
    el('finNFe', model.finNFe),
    el('indFinal', model.indFinal),
    el('indPres', model.indPres),
    opt('indIntermed', model.indIntermed),
    // 0: issued by the taxpayer's own application (B26).
    el('procEmi', 0),
    el('verProc', model.verProc),
    model.contingency === null ? '' : el('dhCont', formatDateTimeTz(model.contingency.dhCont, uf.timeZone)),
    model.contingency === null ? '' : el('xJust', model.contingency.xJust),
    refs,
  );
}

export function dhEmiText(model: NfeModel): string {
  const uf = ufBySigla(model.emit.enderEmit.UF);
  if (uf === undefined) throw new Error(`unknown emitter UF ${model.emit.enderEmit.UF}`);
  return formatDateTimeTz(model.dhEmi, uf.timeZone);
}

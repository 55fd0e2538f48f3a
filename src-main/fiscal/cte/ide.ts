// ide group of the CT-e 4.00 (MOC CT-e 4.00 "Identificação do CT-e"): the key's fields plus origin,
// destination and taker. mod is 57, tpCTe 0 (normal), procEmi 0 (issuer's own application). In contingency
// (tpEmis 7/8) dhCont and xJust follow the taker, as TCTe/infCte/ide orders them.
import { el, group } from '../xml.ts';
import { CTE_MODELO, type CteModel } from './model.ts';

export function ideXml(ide: CteModel['ide'], cDV: number): string {
  return group(
    'ide',
    el('cUF', ide.cUF),
    el('cCT', ide.cCT),
    el('CFOP', ide.CFOP),
    el('natOp', ide.natOp),
    el('mod', CTE_MODELO),
    el('serie', ide.serie),
    el('nCT', ide.nCT),
    el('dhEmi', ide.dhEmi),
    el('tpImp', ide.tpImp),
    el('tpEmis', ide.tpEmis),
    el('cDV', cDV),
    el('tpAmb', ide.tpAmb),
    el('tpCTe', 0),
    el('procEmi', 0),
    el('verProc', ide.verProc),
    el('cMunEnv', ide.cMunEnv),
    el('xMunEnv', ide.xMunEnv),
    el('UFEnv', ide.UFEnv),
    el('modal', ide.modal),
    el('tpServ', ide.tpServ),
    el('cMunIni', ide.cMunIni),
    el('xMunIni', ide.xMunIni),
    el('UFIni', ide.UFIni),
    el('cMunFim', ide.cMunFim),
    el('xMunFim', ide.xMunFim),
    el('UFFim', ide.UFFim),
    el('retira', ide.retira),
    el('indIEToma', ide.indIEToma),
    group('toma3', el('toma', ide.toma)),
    ide.cont === null ? '' : el('dhCont', ide.cont.dhCont) + el('xJust', ide.cont.xJust),
  );
}

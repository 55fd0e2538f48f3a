// ide group of the CT-e 4.00 (MOC CT-e 4.00 "Identificação do CT-e"): the key's fields plus origin,
// destination and taker. mod is 57, tpCTe 0 (normal), procEmi 0 (issuer's own application). In contingency
// (tpEmis 7/8) dhCont and xJust follow the taker, as TCTe/infCte/ide orders them.
import { el, group, opt } from '../xml.ts';
import { CTE_MODELO, type CteModel, type CteParty } from './model.ts';
import { addressTags } from './parties.ts';

/** toma3 names one of the parties by number; toma4 carries a taker that is none of them. */
function takerXml(toma: CteModel['ide']['toma'], other: CteParty | null): string {
  if (toma !== 4 || other === null) return group('toma3', el('toma', toma));
  return group(
    'toma4',
    el('toma', 4),
    other.CNPJ !== undefined ? el('CNPJ', other.CNPJ) : el('CPF', other.CPF ?? ''),
    opt('IE', other.IE),
    el('xNome', other.xNome),
    group('enderToma', ...addressTags(other.ender)),
  );
}

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
    takerXml(ide.toma, ide.toma4),
    ide.cont === null ? '' : el('dhCont', ide.cont.dhCont) + el('xJust', ide.cont.xJust),
  );
}

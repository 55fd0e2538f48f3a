// CTe 4.00 XML written directly in canonical form (see ../xml.ts), ready for signXml with tag 'infCte'.
// Order of the groups: cteTiposBasico_v4.00.xsd TCTe/infCte.
import { buildAccessKey } from '../access-key.ts';
import { CTE_MODELO, CTE_VERSAO, type CteModel } from './model.ts';
import { ideXml } from './ide.ts';
import { complXml } from './compl.ts';
import { destXml, emitXml, expedXml, recebXml, remXml } from './parties.ts';
import { impXml, vPrestXml } from './vprest.ts';
import { infCTeNormXml } from './norm.ts';

export const CTE_NS = 'http://www.portalfiscal.inf.br/cte';

export interface BuiltCte {
  xml: string;
  chave: string;
  cDV: number;
}

/** Throws AccessKeyError when the key's parts are invalid (the caller checks them before). */
export function buildCte(model: CteModel): BuiltCte {
  const { chave, cDV } = buildAccessKey({
    cUF: model.ide.cUF,
    dhEmi: model.ide.dhEmi,
    cnpjCpf: model.emit.CNPJ,
    mod: CTE_MODELO,
    serie: model.ide.serie,
    nNF: model.ide.nCT,
    tpEmis: model.ide.tpEmis,
    cNF: model.ide.cCT,
  });
  const xml =
    `<CTe xmlns="${CTE_NS}"><infCte Id="CTe${chave}" versao="${CTE_VERSAO}">` +
    ideXml(model.ide, cDV) +
    complXml(model.compl) +
    emitXml(model.emit) +
    remXml(model.rem) +
    expedXml(model.exped) +
    recebXml(model.receb) +
    destXml(model.dest) +
    vPrestXml(model.vPrest) +
    impXml(model.imp) +
    infCTeNormXml(model.infCTeNorm) +
    `</infCte></CTe>`;
  return { xml, chave, cDV };
}

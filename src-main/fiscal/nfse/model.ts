// The DPS (Declaração de Prestação de Serviço) of the national NFS-e, layout 1.01, with the tags of
// TCInfDPS (tiposComplexos_v1.01.xsd); and the one mapping from the §2.8 payload's names to those tags.
import { cents } from '../../../src-shared/money.ts';
import { numberToDecimalText } from '../../../src-shared/decimal-text.ts';
import type { FieldFault, NfsePayload } from '../../../src-shared/contracts/nfse-payload.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';

export const DPS_VERSAO = '1.01';

/** CNPJ (14, alphanumeric in the reform's format) or CPF (11 digits), as tpInsc of the Id tells them apart. */
export type Inscricao = { CNPJ: string; CPF?: undefined } | { CPF: string; CNPJ?: undefined };

export interface DpsPrestador {
  inscricao: Inscricao;
  IM: string | null;
  fone: string | null;
  email: string | null;
  regTrib: {
    /** 1 not in the Simples, 2 MEI, 3 ME/EPP. */
    opSimpNac: 1 | 2 | 3;
    /** Only with opSimpNac 3: 1 all taxes by the Simples, 2 federal by the Simples and ISS outside, 3 none. */
    regApTribSN: 1 | 2 | 3 | null;
    /** Special regime (TSRegEspTrib), 0 for none. */
    regEspTrib: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 9;
  };
}

export interface DpsEndereco {
  cMun: string;
  CEP: string;
  xLgr: string;
  nro: string;
  xBairro: string;
}

export interface DpsTomador {
  inscricao: Inscricao;
  xNome: string;
  end: DpsEndereco | null;
  email: string | null;
}

export interface DpsTribFed {
  /** CST of PIS/COFINS (TSTipoCST), e.g. `08` no incidence. */
  piscofinsCST: string;
  /** Federal withholdings in cents, written only when above zero. */
  vRetIRRF: bigint;
  vRetCSLL: bigint;
  vRetCP: bigint;
}

/**
 * The reform's IBSCBS group of layout 1.01 (TCRTCInfoIBSCBS). finNFSe is always 0: layout 1.01 has no other
 * value (a substitute is told by its subst group, not by finNFSe). The taker is also the recipient (indDest 0).
 */
export interface DpsIbsCbs {
  /** Operation indicator code (cIndOp), 6 digits of the national table. */
  cIndOp: string;
  /** 1: for the taker's personal use or consumption (art. 57). */
  indFinal: 0 | 1;
  /** IBS/CBS situation code (CST, 3 digits) and tax classification (cClassTrib, 6 digits). */
  CST: string;
  cClassTrib: string;
}

/**
 * The subst group (TCSubstituicao): this DPS replaces an authorized note, which the national environment then
 * cancels by substitution (event e105102) when it generates the new one.
 */
export interface DpsSubst {
  /** The 50-digit key of the note being replaced. */
  chSubstda: string;
  /** TSCodJustSubst: 01 simples nacional desenquadramento, 02 enquadramento, 03 immunity for a sale, 04 judicial
   * decision, 05 judicial rejection, 99 others. The XSD checks the value. */
  cMotivo: string;
  /** TSMotivo, 15 to 255 characters, optional in the layout. */
  xMotivo: string | null;
}

export interface DpsModel {
  tpAmb: 1 | 2;
  /** TSDateTimeUTC: local time with offset, no fraction (e.g. 2026-03-02T10:00:00-03:00). */
  dhEmi: string;
  verAplic: string;
  /** Series of our DPS sequence, 1 to 5 digits. */
  serie: string;
  nDPS: number;
  /** Competence date YYYY-MM-DD. */
  dCompet: string;
  /** IBGE code of the issuing municipality (the provider's). */
  cLocEmi: string;
  subst: DpsSubst | null;
  prest: DpsPrestador;
  toma: DpsTomador | null;
  serv: { cLocPrestacao: string; cTribNac: string; xDescServ: string };
  valores: {
    vServ: bigint;
    /** tpRetISSQN: 1 not withheld, 2 withheld by the taker. */
    tpRetISSQN: 1 | 2;
    /** ISS rate in percent with two places (TSDec1V2, e.g. `5.00`), or null when the municipality's applies. */
    pAliq: string | null;
    tribFed: DpsTribFed | null;
    /** Simples Nacional total tax percent (pTotTribSN, e.g. `6.00`); without it indTotTrib 0 is written. */
    pTotTribSN: string | null;
  };
  IBSCBS: DpsIbsCbs | null;
}

/** What the company and our sequences give the DPS; the payload gives the rest. */
export interface DpsContext {
  tpAmb: 1 | 2;
  dhEmi: string;
  dCompet: string;
  verAplic: string;
  serie: string;
  nDPS: number;
  cLocEmi: string;
  prest: DpsPrestador;
  pAliq: string | null;
  tribFed: DpsTribFed | null;
  pTotTribSN: string | null;
  IBSCBS: DpsIbsCbs | null;
  /** Set when the DPS replaces an authorized note; absent or null for a regular one. */
  subst?: DpsSubst | null;
  /** IBGE code of a municipality by its name (or code) and UF; null when unknown. */
  municipioCode: (municipio: string, uf: UfSigla) => string | null;
}

function inscricaoOf(cpfCnpj: string): Inscricao {
  return cpfCnpj.length === 11 ? { CPF: cpfCnpj } : { CNPJ: cpfCnpj };
}

/**
 * The §2.8 payload (already parsed) to the DPS model. The service is rendered where the provider is
 * (cLocPrestacao = cLocEmi): a shop's services are; the other places of the layout are not offered yet.
 */
export function dpsFromPayload(
  payload: NfsePayload,
  ctx: DpsContext,
): { ok: true; model: DpsModel } | { ok: false; errors: FieldFault[] } {
  const errors: FieldFault[] = [];
  const endereco = payload.tomador.endereco;
  let end: DpsEndereco | null = null;
  if (endereco !== undefined) {
    const cMun = /^\d{7}$/.test(endereco.municipio)
      ? endereco.municipio
      : ctx.municipioCode(endereco.municipio, endereco.uf as UfSigla);
    if (cMun === null) {
      errors.push({ field: 'tomador.endereco.municipio', error: 'unknown municipality in this UF' });
    } else {
      end = {
        cMun,
        CEP: endereco.cep,
        xLgr: endereco.logradouro,
        nro: endereco.numero,
        xBairro: endereco.bairro,
      };
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    model: {
      tpAmb: ctx.tpAmb,
      dhEmi: ctx.dhEmi,
      verAplic: ctx.verAplic,
      serie: ctx.serie,
      nDPS: ctx.nDPS,
      dCompet: ctx.dCompet,
      cLocEmi: ctx.cLocEmi,
      subst: ctx.subst ?? null,
      prest: ctx.prest,
      toma: {
        inscricao: inscricaoOf(payload.tomador.cpf_cnpj),
        xNome: payload.tomador.razao_social,
        end,
        email: payload.tomador.email ?? null,
      },
      serv: {
        cLocPrestacao: ctx.cLocEmi,
        cTribNac: payload.codigo_tributacao_nacional,
        xDescServ: payload.descricao_servico,
      },
      valores: {
        // valor_servico is a JSON number with at most two places (the contract checks it): the text the
        // sender wrote is read as cents, never through binary arithmetic.
        vServ: cents(numberToDecimalText(payload.valor_servico)),
        tpRetISSQN: payload.iss_retido ? 2 : 1,
        pAliq: ctx.pAliq,
        tribFed: ctx.tribFed,
        pTotTribSN: ctx.pTotTribSN,
      },
      IBSCBS: ctx.IBSCBS,
    },
  };
}

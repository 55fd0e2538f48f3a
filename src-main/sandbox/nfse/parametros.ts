// ADN Parâmetros Municipais as the sandbox plays it: GET /{codigoMunicipio}/convenio and
// GET /{codigoMunicipio}/{codigoServico}/{competencia}/aliquota, answered from the municipal parameters the
// control endpoint configures (municipal.ts), in the shapes of the ADN OpenAPI document.
import { findMunicipio } from '../../reference/ibge.ts';
import { aliquotaOf, municipioOf } from './municipal.ts';
import type { NfseAnswer, NfseContext } from './sefin.ts';

const CMUN = /^\d{7}$/;
// The service code as the ADN path carries it: the 6-digit national code, dotted or not, optionally followed
// by a 3-digit municipal breakdown (which the sandbox does not distinguish).
const SERVICE = /^(\d{2})\.?(\d{2})\.?(\d{2})(?:\.?\d{3})?$/;
const COMPETENCIA = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?$/;

// Registered since before the national NFS-e existed: every competence the sandbox is asked about is covered.
const VIGENCIA_INICIO = '2020-01-01T00:00:00';

/** GET /{codigoMunicipio}/convenio: ResultadoConsultaConfiguracoesConvenio. */
export async function convenio(cMun: string, ctx: NfseContext): Promise<NfseAnswer> {
  if (!CMUN.test(cMun)) {
    return {
      status: 400,
      body: { mensagem: 'Código de município inválido (7 dígitos do IBGE).' },
      code: '400',
    };
  }
  if (findMunicipio(cMun) === undefined) {
    return { status: 404, body: { mensagem: `Município ${cMun} não encontrado.` }, code: '404' };
  }
  const params = await municipioOf(ctx.db, cMun);
  const simNao = params.aderente ? 1 : 0;
  return {
    status: 200,
    body: {
      mensagem: null,
      parametrosConvenio: {
        tipoConvenioDeserializationSetter: 1,
        aderenteAmbienteNacional: simNao,
        aderenteEmissorNacional: simNao,
        situacaoEmissaoPadraoContribuintesRFB: 0,
        aderenteMAN: 0,
        permiteAproveitametoDeCreditos: false,
      },
    },
    code: params.aderente ? 'aderente' : 'nao-aderente',
  };
}

/** GET /{codigoMunicipio}/{codigoServico}/{competencia}/aliquota: ResultadoConsultaAliquotas. */
export async function aliquota(
  cMun: string,
  codigoServico: string,
  competencia: string,
  ctx: NfseContext,
): Promise<NfseAnswer> {
  const service = SERVICE.exec(codigoServico);
  if (!CMUN.test(cMun) || service === null || !COMPETENCIA.test(competencia)) {
    return {
      status: 400,
      body: { mensagem: 'Município, código de serviço ou competência inválidos.', aliquotas: null },
      code: '400',
    };
  }
  const cTribNac = `${service[1]}${service[2]}${service[3]}`;
  const params = await municipioOf(ctx.db, cMun);
  const rate = params.aderente ? aliquotaOf(params, cTribNac) : null;
  if (findMunicipio(cMun) === undefined || rate === null) {
    return {
      status: 404,
      body: {
        mensagem: params.aderente
          ? `Nenhuma alíquota cadastrada pelo município ${cMun} para o serviço ${cTribNac}.`
          : `O município ${cMun} não aderiu ao ambiente nacional da NFS-e.`,
        aliquotas: null,
      },
      code: '404',
    };
  }
  return {
    status: 200,
    body: {
      mensagem: null,
      aliquotas: {
        // Aliq is a JSON number in the ADN schema (double); a two-place percent survives the round trip
        // exactly as text ("2.5" for 2.50), and the client reads it back as decimal text.
        [codigoServico]: [{ Incidencia: null, Aliq: Number(rate), DtIni: VIGENCIA_INICIO, DtFim: null }],
      },
    },
    code: rate,
  };
}

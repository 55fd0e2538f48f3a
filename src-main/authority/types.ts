// Names shared by the authority client, the endpoint tables and the sandbox authority: the NF-e 4.00 web
// services (MOC 7.0 §3 and the WSDLs of the Portal Nacional da NF-e), the CT-e 4.00 ones (MOC CT-e 4.00) and the
// DC-e 1.00 ones (the authorizer's WSDLs as ACBr's DC-e services name them).
import type { UfSigla } from '../../src-shared/uf.ts';

export type AuthorityService =
  | 'NFeAutorizacao4'
  | 'NFeRetAutorizacao4'
  | 'NFeConsultaProtocolo4'
  | 'NFeStatusServico4'
  | 'NFeRecepcaoEvento4'
  | 'NFeInutilizacao4'
  | 'NFeDistribuicaoDFe'
  | CteService
  | DceService;

/**
 * CT-e 4.00 web services (model 57). There is no CT-e 4.00 number-voiding service (see docs/cte.md) and no
 * asynchronous lot: CTeRecepcaoSincV4 takes one gzipped CT-e and answers with its protocol.
 */
export type CteService = 'CTeRecepcaoSincV4' | 'CTeConsultaV4' | 'CTeStatusServicoV4' | 'CTeRecepcaoEventoV4';
export const CTE_SERVICES: readonly CteService[] = [
  'CTeRecepcaoSincV4',
  'CTeConsultaV4',
  'CTeStatusServicoV4',
  'CTeRecepcaoEventoV4',
];

/** The guard of one family's services: whether a service is in `list`. */
function memberOf<S extends AuthorityService>(list: readonly S[]) {
  return (service: AuthorityService): service is S => (list as readonly string[]).includes(service);
}

export const isCteService = memberOf(CTE_SERVICES);

/**
 * DC-e 1.00 web services (model 99). Authorization is synchronous, one DC-e per message; the only event is the
 * cancellation; there is no number voiding. The messages travel in `dceDadosMsg`, the answers in `dceResultMsg`.
 */
export type DceService = 'DCeAutorizacao' | 'DCeConsulta' | 'DCeStatusServico' | 'DCeRecepcaoEvento';
export const DCE_SERVICES: readonly DceService[] = [
  'DCeAutorizacao',
  'DCeConsulta',
  'DCeStatusServico',
  'DCeRecepcaoEvento',
];

export const isDceService = memberOf(DCE_SERVICES);

/** Where a request goes: the UF's own authority, or one of the two virtual contingency authorities. */
export type ContingencyMode = 'normal' | 'SVC-AN' | 'SVC-RS';

/** WSDL operation of each service: the SOAP 1.2 action is `${namespace}/${operation}`. */
export const SERVICE_WSDL: Readonly<Record<AuthorityService, { namespace: string; operation: string }>> = {
  NFeAutorizacao4: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeAutorizacao4',
    operation: 'nfeAutorizacaoLote',
  },
  NFeRetAutorizacao4: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeRetAutorizacao4',
    operation: 'nfeRetAutorizacaoLote',
  },
  NFeConsultaProtocolo4: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeConsultaProtocolo4',
    operation: 'nfeConsultaNF',
  },
  NFeStatusServico4: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeStatusServico4',
    operation: 'nfeStatusServicoNF',
  },
  NFeRecepcaoEvento4: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeRecepcaoEvento4',
    operation: 'nfeRecepcaoEvento',
  },
  NFeInutilizacao4: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeInutilizacao4',
    operation: 'nfeInutilizacaoNF',
  },
  NFeDistribuicaoDFe: {
    namespace: 'http://www.portalfiscal.inf.br/nfe/wsdl/NFeDistribuicaoDFe',
    operation: 'nfeDistDFeInteresse',
  },
  // CT-e 4.00 WSDLs (methods as in sped-cte's wscte_4.00_mod57.xml and ACBr's CT-e services).
  CTeRecepcaoSincV4: {
    namespace: 'http://www.portalfiscal.inf.br/cte/wsdl/CTeRecepcaoSincV4',
    operation: 'cteRecepcao',
  },
  CTeConsultaV4: {
    namespace: 'http://www.portalfiscal.inf.br/cte/wsdl/CTeConsultaV4',
    operation: 'cteConsultaCT',
  },
  CTeStatusServicoV4: {
    namespace: 'http://www.portalfiscal.inf.br/cte/wsdl/CTeStatusServicoV4',
    operation: 'cteStatusServicoCT',
  },
  CTeRecepcaoEventoV4: {
    namespace: 'http://www.portalfiscal.inf.br/cte/wsdl/CTeRecepcaoEventoV4',
    operation: 'cteRecepcaoEvento',
  },
  // DC-e 1.00 WSDLs: namespace http://www.portalfiscal.inf.br/dce/wsdl/<service>, operation in lower camel case.
  DCeAutorizacao: {
    namespace: 'http://www.portalfiscal.inf.br/dce/wsdl/DCeAutorizacao',
    operation: 'dceAutorizacao',
  },
  DCeConsulta: {
    namespace: 'http://www.portalfiscal.inf.br/dce/wsdl/DCeConsulta',
    operation: 'dceConsulta',
  },
  DCeStatusServico: {
    namespace: 'http://www.portalfiscal.inf.br/dce/wsdl/DCeStatusServico',
    operation: 'dceStatusServico',
  },
  DCeRecepcaoEvento: {
    namespace: 'http://www.portalfiscal.inf.br/dce/wsdl/DCeRecepcaoEvento',
    operation: 'dceRecepcaoEvento',
  },
};

export interface EndpointQuery {
  uf: UfSigla;
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  modelo: 55 | 65;
  service: AuthorityService;
  contingency: ContingencyMode;
}

export interface Endpoint {
  url: string;
  service: AuthorityService;
  /** The authority that answers (e.g. 'SP', 'SVRS', 'SVAN', 'SVC-AN', 'SVC-RS', 'AN'). */
  authority: string;
}

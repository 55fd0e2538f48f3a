// Names shared by the authority client, the endpoint tables and the sandbox authority: the NF-e 4.00 web
// services (MOC 7.0 §3 and the WSDLs of the Portal Nacional da NF-e).
import type { UfSigla } from '../../src-shared/uf.ts';

export type AuthorityService =
  | 'NFeAutorizacao4'
  | 'NFeRetAutorizacao4'
  | 'NFeConsultaProtocolo4'
  | 'NFeStatusServico4'
  | 'NFeRecepcaoEvento4'
  | 'NFeInutilizacao4'
  | 'NFeDistribuicaoDFe';

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

// cStat -> xMotivo of every CT-e 4.00 answer the sandbox authority gives (the NF-e table stays in ../cstat.ts).
//
// Sources of the texts: the CT-e code table of the MOC CT-e ("Tabela de códigos de erros e descrições de
// mensagens de erros") as transcribed in public code: ACBr-derived Delphi tables (e.g. guilhermitoo/Projetos
// delphi/exemplos/WSUtils.pas, the case of CT-e cStat texts), the same list published in "Principais códigos de
// retornos da sefaz" pages, and katrid/brasil brasil/dfe/cte/rejections.py for the MOC 4.00 rule numbers
// (G013 732, G040 843, G049 676, G050 519). Where a transcription drops the accents ("Rejeicao"), the accented
// form of the rest of the table is used; a typo of the transcription ("exitir") is corrected.
//
// 512, 522 and 529 are the codes of the specification (§7 "CT-e rejections"), and Balcão refuses them itself
// before signing (fiscal/cte/rules.ts). In the CT-e table those three numbers name other rules (512 "CNPJ/CPF
// do destinatário do CT-e substituto deve ser igual ao informado no CT-e substituído", 529 "Vedado cancelamento
// do CT-e Multimodal se existir CT-e de serviço vinculado autorizado referenciando o Multimodal", 522 absent),
// and the authority checks the same facts under 676/519 (CFOP) and 843/591/605 (NF-e key transported); no
// official rule compares vTPrest with the sum of Comp/vComp. The sandbox answers the specification's codes, so
// the API and the authority agree; their texts below are ours, in the authority's style, NOT official.
import { clampMotivo } from '../cstat.ts';

export const CTE_CSTAT = {
  100: 'Autorizado o uso do CT-e',
  101: 'Cancelamento de CT-e homologado',
  107: 'Serviço em Operação',
  108: 'Serviço Paralisado Momentaneamente (curto prazo)',
  109: 'Serviço Paralisado sem Previsão',
  110: 'Uso Denegado',
  135: 'Evento registrado e vinculado a CT-e',
  // 204/539: the authority appends the original protocol ("[nProt:...][dhAut:...]") so the emitter can
  // recover a CT-e whose answer it lost.
  204: 'Rejeição: Duplicidade de CT-e',
  205: 'Rejeição: CT-e está denegado na base de dados da SEFAZ',
  212: 'Rejeição: Data de emissão CT-e posterior a data de recebimento',
  213: 'Rejeição: CNPJ-Base do Emitente difere do CNPJ-Base do Certificado Digital',
  214: 'Rejeição: Tamanho da mensagem excedeu o limite estabelecido',
  215: 'Rejeição: Falha no schema XML',
  217: 'Rejeição: CT-e não consta na base de dados da SEFAZ',
  218: 'Rejeição: CT-e já está cancelado na base de dados da SEFAZ',
  219: 'Rejeição: Circulação do CT-e verificada',
  220: 'Rejeição: CT-e autorizado há mais de 7 dias (168 horas)',
  222: 'Rejeição: Protocolo de Autorização de Uso difere do cadastrado',
  225: 'Rejeição: Falha no Schema XML do CT-e',
  227: 'Rejeição: Erro na composição do Campo ID',
  236: 'Rejeição: Chave de Acesso com dígito verificador inválido',
  243: 'Rejeição: XML Mal Formado',
  247: 'Rejeição: Sigla da UF do Emitente diverge da UF autorizadora',
  252: 'Rejeição: Ambiente informado diverge do Ambiente de recebimento',
  253: 'Rejeição: Dígito Verificador da chave de acesso composta inválido',
  290: 'Rejeição: Certificado Assinatura inválido',
  291: 'Rejeição: Certificado Assinatura Data Validade',
  292: 'Rejeição: Certificado Assinatura sem CNPJ',
  297: 'Rejeição: Assinatura difere do calculado',
  298: 'Rejeição: Assinatura difere do padrão do Projeto',
  301: 'Uso Denegado : Irregularidade fiscal do emitente',
  404: 'Rejeição: Uso de prefixo de namespace não permitido',
  // Specification codes, texts NOT official (see the head of this file).
  512: 'Rejeição: Valor total da prestação (vTPrest) difere do somatório dos componentes do valor (vComp)',
  522: 'Rejeição: CFOP inválido para a prestação: 5xxx dentro do estado (UFIni = UFFim), 6xxx entre estados',
  529: 'Rejeição: Chave de acesso de NF-e transportada ausente ou inválida (dígito verificador ou modelo diferente de 55)',
  528: 'Rejeição: Vedado cancelamento se existir MDF-e autorizado para o CT-e',
  531: 'Rejeição: Valor a receber deve ser menor ou igual Valor da Prestação',
  539: 'Rejeição: Duplicidade de CT-e, com diferença na Chave de Acesso',
  580: 'Rejeição: Falha no Schema XML específico para o modal',
  586: 'Rejeição: Data e Justificativa de entrada em contingência não devem ser informadas para tipo de emissão normal.',
  587: 'Rejeição: Data e Justificativa de entrada em contingência devem ser informadas',
  588: 'Rejeição: Data de entrada em contingência posterior a data de emissão.',
  599: 'Rejeição: Não é permitida a presença de caracteres de edição no início/fim da mensagem ou entre as tags da mensagem',
  628: 'Rejeição: Erro Atributo ID do evento não corresponde a concatenação dos campos ("ID" + tpEvento + chCTe + nSeqEvento)',
  629: 'Rejeição: O tpEvento informado inválido',
  630: 'Rejeição: Falha no Schema XML específico para o evento',
  631: 'Rejeição: Duplicidade de evento',
  632: 'Rejeição: O autor do evento diverge do emissor do CT-e',
  634: 'Rejeição: A data do evento não pode ser menor que a data de emissão do CT-e',
  635: 'Rejeição: A data do evento não pode ser maior que a data do processamento',
  636: 'Rejeição: O numero sequencial do evento é maior que o permitido',
  677: 'Rejeição: Órgão de recepção do evento inválido',
  681: 'Rejeição: Informação não pode ser alterada por carta de correção',
  732: 'Rejeição: Chave de acesso inválida (modelo diferente de 57)',
} as const satisfies Record<number, string>;

export type CteCStat = keyof typeof CTE_CSTAT;

export function isCteCStat(code: number): code is CteCStat {
  return Object.hasOwn(CTE_CSTAT, code);
}

/** The xMotivo of a CT-e `cStat`, with optional details appended (cut to TMotivo's 255 characters). */
export function cteMotivo(cStat: CteCStat, detail?: string): string {
  const base: string = CTE_CSTAT[cStat];
  return clampMotivo(detail === undefined || detail === '' ? base : `${base} ${detail}`);
}

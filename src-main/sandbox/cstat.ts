// cStat -> xMotivo of every answer the sandbox authority gives, as data. Texts: MOC 7.0 annex "Regras de
// validação" as collected in sped-nfe storage/cstat.json (shared/reference/tables/sped-nfe; the package is
// LGPL/GPL/MIT, the texts themselves are official SEFAZ messages); entries changed by a later NT say which.

/**
 * Base texts, without the bracketed details some rules append (e.g. 204 "[nProt:...][dhAut:...]").
 * Only Latin-1 characters: xMotivo is TMotivo, whose TString pattern stops at U+00FF.
 */
export const CSTAT = {
  100: 'Autorizado o uso da NF-e',
  101: 'Cancelamento de NF-e homologado',
  102: 'Inutilização de número homologado',
  103: 'Lote recebido com sucesso',
  104: 'Lote processado',
  105: 'Lote em processamento',
  106: 'Lote não localizado',
  107: 'Serviço em Operação',
  108: 'Serviço Paralisado Momentaneamente (curto prazo)',
  109: 'Serviço Paralisado sem Previsão',
  110: 'Uso Denegado',
  128: 'Lote de Evento Processado',
  135: 'Evento registrado e vinculado a NF-e',
  136: 'Evento registrado, mas não vinculado a NF-e',
  // NT 2014.002 (NFeDistribuicaoDFe) answers these without cstat.json's "para o Destinatário".
  137: 'Nenhum documento localizado',
  138: 'Documento localizado',
  150: 'Autorizado o uso da NF-e, autorização fora de prazo',
  // 204/205/218/539: the authority appends the original protocol and authorization time ("[nProt:...]
  // [dhAut:...]", MOC 7.0) so the emitter can recover its note; cstat.json shows the older "[nRec:...]"
  // suffix and leaves out the "Rejeição:" prefix real answers carry ("Rejeicao: Duplicidade de NF-e").
  204: 'Rejeição: Duplicidade de NF-e',
  205: 'Rejeição: NF-e está denegada na base de dados da SEFAZ',
  206: 'Rejeição: NF-e já está inutilizada na Base de dados da SEFAZ',
  209: 'Rejeição: IE do emitente inválida',
  210: 'Rejeição: IE do destinatário inválida',
  213: 'Rejeição: CNPJ-Base do Emitente difere do CNPJ-Base do Certificado Digital',
  214: 'Rejeição: Tamanho da mensagem excedeu o limite estabelecido',
  215: 'Rejeição: Falha no schema XML',
  217: 'Rejeição: NF-e não consta na base de dados da SEFAZ',
  218: 'Rejeição: NF-e já está cancelada na base de dados da SEFAZ',
  222: 'Rejeição: Protocolo de Autorização de Uso difere do cadastrado',
  223: 'Rejeição: CNPJ do transmissor do lote difere do CNPJ do transmissor da consulta',
  224: 'Rejeição: A faixa inicial é maior que a faixa final',
  225: 'Rejeição: Falha no Schema XML do lote de NFe',
  228: 'Rejeição: Data de Emissão muito atrasada',
  232: 'Rejeição: IE do destinatário não informada',
  236: 'Rejeição: Chave de Acesso com dígito verificador inválido',
  241: 'Rejeição: Um número da faixa já foi utilizado',
  243: 'Rejeição: XML Mal Formado',
  252: 'Rejeição: Ambiente informado diverge do Ambiente de recebimento',
  253: 'Rejeição: Digito Verificador da chave de acesso composta inválida',
  256: 'Rejeição: Uma NF-e da faixa já está inutilizada na Base de dados da SEFAZ',
  290: 'Rejeição: Certificado Assinatura inválido',
  291: 'Rejeição: Certificado Assinatura Data Validade',
  292: 'Rejeição: Certificado Assinatura sem CNPJ',
  297: 'Rejeição: Assinatura difere do calculado',
  298: 'Rejeição: Assinatura difere do padrão do Sistema',
  301: 'Uso Denegado: Irregularidade fiscal do emitente',
  302: 'Uso Denegado: Irregularidade fiscal do destinatário',
  321: 'Rejeição: NF-e de devolução de mercadoria não possui documento fiscal referenciado',
  // 373 and 394-398 come from NT 2015.002; cstat.json lists them without the "Rejeição:" prefix.
  373: 'Rejeição: Descrição do primeiro item diferente de NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL',
  394: 'Rejeição: Nota Fiscal sem a informação do QR-Code',
  395: 'Rejeição: Endereço do site da UF da Consulta via QRCode diverge do previsto',
  397: 'Rejeição: Parâmetro do QR-Code divergente da Nota Fiscal (chAcesso)',
  398: 'Rejeição: Parâmetro nVersao do QR-Code difere do previsto',
  404: 'Rejeição: Uso de prefixo de namespace não permitido',
  // NT 2025.001 (RV GAP03a-3) gave code 452 this meaning (cstat.json of 2019 still has the retired one):
  // a lote with a single NF-e must ask for the synchronous answer.
  452: 'Rejeição: Solicitada resposta assíncrona para Lote com somente 1 (uma) NF-e',
  453: 'Rejeição: Ano de inutilização não pode ser superior ao Ano atual',
  454: 'Rejeição: Ano de inutilização não pode ser inferior a 2006',
  462: 'Rejeição: Código Identificador do CSC no QR-Code não cadastrado na SEFAZ',
  463: 'Rejeição: Código Identificador do CSC no QR-Code foi revogado pela empresa',
  464: 'Rejeição: Código de Hash no QR-Code difere do calculado',
  491: 'Rejeição: O tpEvento informado inválido',
  493: 'Rejeição: Evento não atende o Schema XML específico',
  494: 'Rejeição: Chave de Acesso inexistente',
  // NT 2015.002 moved "cancelamento fora de prazo" to 501 with this text (cstat.json keeps the 3.10 one).
  501: 'Rejeição: Prazo de cancelamento superior ao previsto na Legislação',
  502: 'Rejeição: Erro na Chave de Acesso - Campo Id não corresponde à concatenação dos campos correspondentes',
  518: 'Rejeição: CFOP de entrada para NF-e de saída',
  519: 'Rejeição: CFOP de saída para NF-e de entrada',
  528: 'Rejeição: Valor do ICMS difere do produto BC e Alíquota',
  531: 'Rejeição: Total da BC ICMS difere do somatório dos itens',
  532: 'Rejeição: Total do ICMS difere do somatório dos itens',
  533: 'Rejeição: Total da BC ICMS-ST difere do somatório dos itens',
  534: 'Rejeição: Total do ICMS-ST difere do somatório dos itens',
  539: 'Rejeição: Duplicidade de NF-e com diferença na Chave de Acesso',
  561: 'Rejeição: Mês de Emissão informado na Chave de Acesso difere do Mês de Emissão da NF-e',
  563: 'Rejeição: Já existe pedido de Inutilização com a mesma faixa de inutilização',
  572: 'Rejeição: Erro Atributo ID do evento não corresponde a concatenação dos campos ("ID" + tpEvento + chNFe + nSeqEvento)',
  573: 'Rejeição: Duplicidade de Evento',
  574: 'Rejeição: O autor do evento diverge do emissor da NF-e',
  575: 'Rejeição: O autor do evento diverge do destinatário da NF-e',
  577: 'Rejeição: A data do evento não pode ser menor que a data de emissão da NF-e',
  578: 'Rejeição: A data do evento não pode ser maior que a data do processamento',
  580: 'Rejeição: O evento exige uma NF-e autorizada',
  588: 'Rejeição: Não é permitida a presença de caracteres de edição no início/fim da mensagem ou entre as tags da mensagem',
  589: 'Rejeição: Número do NSU informado superior ao maior NSU da base de dados da SEFAZ',
  593: 'Rejeição: CNPJ-Base consultado difere do CNPJ-Base do Certificado Digital',
  594: 'Rejeição: O número de sequencia do evento informado é maior que o permitido',
  598: 'Rejeição: NF-e emitida em ambiente de homologação com Razão Social do destinatário diferente de NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL',
  627: 'Rejeição: O valor do ICMS desonerado deve ser informado',
  650: 'Rejeição: Evento de "Ciência da Emissão" para NF-e Cancelada ou Denegada',
  651: 'Rejeição: Evento de "Desconhecimento da Operação" para NF-e Cancelada ou Denegada',
  655: 'Rejeição: Evento de Ciência da Emissão informado após a manifestação final do destinatário',
  656: 'Rejeição: Consumo Indevido',
  657: 'Rejeição: Código do Órgão diverge do órgão autorizador',
  // 694-699, 798-800, 807 (NT 2015.003 DIFAL): the rule texts, without the help text cstat.json prefixes
  // to some and with the "Rejeição:" prefix real answers carry.
  694: 'Rejeição: Não informado o grupo de ICMS para a UF de destino',
  695: 'Rejeição: Informado indevidamente o grupo de ICMS para a UF de destino',
  // cstat.json prefixes 696 with an emitter program's help text; this is the rule's own message.
  696: 'Rejeição: Operação com não contribuinte deve indicar operação com consumidor final',
  698: 'Rejeição: Alíquota interestadual do ICMS incompatível com as UF envolvidas na operação',
  699: 'Rejeição: Percentual do ICMS Interestadual para a UF de destino difere do previsto para o ano da Data de Emissão',
  703: 'Rejeição: Data-Hora de Emissão posterior ao horário de recebimento',
  704: 'Rejeição: NFC-e com Data-Hora de emissão atrasada',
  711: 'Rejeição: NF-e com contingência off-line',
  725: 'Rejeição: NFC-e com CFOP inválido',
  729: 'Rejeição: NFC-e com informação da IE do destinatário',
  731: 'Rejeição: CFOP de operação com Exterior e idDest <> 3',
  732: 'Rejeição: CFOP de operação interestadual e idDest <> 2',
  733: 'Rejeição: CFOP de operação interna e idDest <> 1',
  750: 'Rejeição: NFC-e com valor total superior ao permitido para destinatário não identificado (Código)',
  751: 'Rejeição: NFC-e com valor total superior ao permitido para destinatário não identificado (Nome)',
  752: 'Rejeição: NFC-e com valor total superior ao permitido para destinatário não identificado (Endereço)',
  753: 'Rejeição: NFC-e com Frete',
  764: 'Rejeição: Solicitada resposta síncrona para Lote com mais de uma NF-e (indSinc=1)',
  765: 'Rejeição: Lote só poderá conter NF-e ou NFC-e',
  778: 'Rejeição: Informado NCM inexistente',
  780: 'Rejeição: Total da NFC-e superior ao valor limite estabelecido pela SEFAZ',
  784: 'Rejeição: NFC-e não permite o evento de Carta de Correção',
  791: 'Rejeição: NF-e com indicação de destinatário isento de IE, com a informação da IE do destinatário',
  795: 'Rejeição: Total do ICMS desonerado difere do somatório dos itens',
  796: 'Rejeição: Empresa sem Chave de Segurança para o QR-Code',
  798: 'Rejeição: Valor total do ICMS relativo Fundo de Combate à Pobreza (FCP) da UF de destino difere do somatório do valor dos itens',
  799: 'Rejeição: Valor total do ICMS Interestadual da UF de destino difere do somatório dos itens',
  800: 'Rejeição: Valor total do ICMS Interestadual da UF do remetente difere do somatório dos itens',
  805: 'Rejeição: A SEFAZ do destinatário não permite Contribuinte Isento de Inscrição Estadual',
  807: 'Rejeição: NFC-e com grupo de ICMS para a UF do destinatário',
  // 859-881: NT 2016.002 (FCP) rules, not in the 2019 table.
  859: 'Rejeição: Total do FCP retido anteriormente por Substituição Tributária difere do somatório dos itens',
  860: 'Rejeição: Valor do FCP informado difere de base de cálculo*alíquota',
  861: 'Rejeição: Total do FCP difere do somatório dos itens',
  862: 'Rejeição: Total do FCP ST difere do somatório dos itens',
  // 865/866/869: NT 2016.002 payment rules (YA03-10, YA03-20, YA09-10), not in the 2019 table.
  865: 'Rejeição: Total dos pagamentos menor que o total da nota',
  866: 'Rejeição: Ausência de troco quando o valor dos pagamentos informados for maior que o total da nota',
  869: 'Rejeição: Valor do troco incorreto',
  876: 'Rejeição: Operação interestadual para Consumidor Final e valor do FCP informado em campo diferente de vFCPUFDest (id:NA13)',
  880: 'Rejeição: Percentual de FCP igual a zero',
  881: 'Rejeição: Percentual de FCPST igual a zero',
  // NT 2018.004 (cancelamento por substituição): the substitute key, chNFeRef, fails the key checks.
  910: 'Rejeição: Chave de Acesso NF-e Substituta inválida',
  // NT 2025.002-RTC v1.31 (IBS/CBS, rules UB13-UB67 and W34-W56); the item is appended as "[nItem: n]".
  1007: 'Rejeição: CST do IBS/CBS informado não permite informação de redução de alíquota municipal',
  1020: 'Rejeição: CST do IBS/CBS informado inexistente',
  1021: 'Rejeição: Grupo IBS/CBS informado indevidamente',
  1022: 'Rejeição: Grupo IBS/CBS não informado',
  1023: 'Rejeição: Classificação Tributária do IBS/CBS informada inexistente',
  1024: 'Rejeição: Classificação Tributária do IBS e da CBS incompatível com o CST informado',
  1025: 'Rejeição: CST cClassTrib do IBS/CBS não permitido neste modelo de DFe',
  1026: 'Rejeição: Alíquota do IBS da UF inválida',
  1028: 'Rejeição: CST do IBS/CBS informado não permite informação de redução de alíquota da CBS',
  1029: 'Rejeição: CST do IBS/CBS informado não permite informação de diferimento Estadual',
  1030: 'Rejeição: CST do IBS/CBS informado obriga informação de diferimento Estadual',
  1031: 'Rejeição: Valor do Diferimento da UF difere do calculado',
  1032: 'Rejeição: CST do IBS/CBS informado não permite informação de redução de alíquota Estadual',
  1033: 'Rejeição: Não informado o grupo de redução de alíquota Estadual',
  1034: 'Rejeição: Percentual de redução de alíquota da UF não é válido para este cClassTrib',
  1035: 'Rejeição: Valor da Alíquota Efetiva do IBS da UF calculado incorretamente',
  1036: 'Rejeição: Alíquota do IBS do Município inválida',
  1037: 'Rejeição: Alíquota da CBS inválida',
  1041: 'Rejeição: Valor do IBS da UF difere do calculado',
  1044: 'Rejeição: CST do IBS/CBS informado obriga informação de diferimento Municipal',
  1045: 'Rejeição: Valor do Diferimento do Município difere do calculado',
  1046: 'Rejeição: Percentual de redução de alíquota do Município não é válido para este cClassTrib',
  1047: 'Rejeição: Valor da Alíquota Efetiva do IBS do Município calculado incorretamente',
  1052: 'Rejeição: Valor do IBS Municipal difere do calculado',
  1061: 'Rejeição: CST do IBS/CBS informado obriga informação de diferimento da CBS',
  1062: 'Rejeição: Valor do Diferimento da CBS difere do calculado',
  1063: 'Rejeição: Percentual de redução de alíquota da CBS não é válido para este cClassTrib',
  1064: 'Rejeição: Valor da Alíquota Efetiva da CBS calculado incorretamente',
  1069: 'Rejeição: Valor da CBS difere do calculado',
  1074: 'Rejeição: Não informado o grupo de redução de alíquota Municipal',
  1076: 'Rejeição: Total da BC do IBS e da CBS difere da soma dos itens',
  1077: 'Rejeição: Total de Diferimento do IBS UF difere da soma dos itens',
  1079: 'Rejeição: Não informado o grupo de redução de alíquota da CBS',
  1080: 'Rejeição: Total de IBS UF difere da soma dos itens',
  1081: 'Rejeição: Total de Diferimento do IBS Municipal difere da soma dos itens',
  1083: 'Rejeição: CST do IBS/CBS informado não permite informação de diferimento Municipal',
  1084: 'Rejeição: Total de IBS Municipal difere da soma dos itens',
  1085: 'Rejeição: Total do IBS difere da soma do vIBS dos itens',
  1088: 'Rejeição: Total de Diferimento da CBS difere da soma dos itens',
  1090: 'Rejeição: CST do IBS/CBS informado não permite informação de diferimento da CBS',
  1091: 'Rejeição: Total de CBS difere da soma dos itens',
  1118: 'Rejeição: Total de IBS e CBS informado indevidamente',
  1119: 'Rejeição: Total de IBS e CBS não informado',
  1150: 'Rejeição: Valor do IBS do Item (vIBS) difere do calculado',
  // 972-978: NT 2018.005 v1.30 (responsável técnico, CSRT), not in the 2019 table.
  972: 'Rejeição: Obrigatória as informações do responsável técnico',
  973: 'Rejeição: CNPJ do responsável técnico inválido',
  975: 'Rejeição: Obrigatória a informação do identificador do CSRT e do Hash do CSRT',
  976: 'Rejeição: Identificador do CSRT não cadastrado na SEFAZ',
  977: 'Rejeição: Identificador do CSRT revogado',
  978: 'Rejeição: Hash do CSRT diverge do calculado',
  999: 'Rejeição: Erro não catalogado',
  // Part D (devolução, transport, cobrança). 354-760: cstat.json; 850-905: NT 2016.002 v1.60 §3.2 (added after
  // the 2019 table), the [nOcor] placeholder appended at run time.
  354: 'Rejeição: Informado grupo de devolução de tributos para NF-e que não tem finalidade de devolução de mercadoria',
  542: 'Rejeição: CNPJ do Transportador inválido',
  543: 'Rejeição: CPF do Transportador inválido',
  544: 'Rejeição: IE do Transportador inválida',
  559: 'Rejeição: UF do Transportador não informada',
  754: 'Rejeição: NFC-e com dados do Transportador',
  756: 'Rejeição: NFC-e com dados do veículo de Transporte',
  760: 'Rejeição: NFC-e com dados de cobrança (Fatura, Duplicata)',
  850: 'Rejeição: Data de vencimento da parcela não informada ou menor que a Data de vencimento da parcela anterior',
  851: 'Rejeição: Soma do valor das parcelas difere do Valor Líquido da Fatura',
  852: 'Rejeição: Número da parcela inválido ou não informado',
  863: 'Rejeição: Total do IPI devolvido difere do somatório dos itens',
  868: 'Rejeição: Grupos Veiculo Transporte e Reboque não devem ser informados',
  897: 'Rejeição: Valor da Fatura maior que Valor Total da NF-e',
  900: 'Rejeição: Data de vencimento da parcela não informada ou menor que Data de Emissão',
  901: 'Rejeição: Valor do Desconto da Fatura maior que Valor Original da Fatura',
  902: 'Rejeição: Valor Liquido da Fatura difere do Valor Original menos o Valor do Desconto',
  905: 'Rejeição: Campos do grupo Fatura não informados',
} as const satisfies Record<number, string>;

export type CStat = keyof typeof CSTAT;

/** Events use the 213 rule with the author in place of the emitter (MOC 7.0, Sistema de Registro de Eventos). */
export const EVENT_213 = 'Rejeição: CNPJ-Base do Autor difere do CNPJ-Base do Certificado Digital';

const MAX_MOTIVO = 255; // TMotivo maxLength

/** The xMotivo of `cStat`, with optional details appended (cut to TMotivo's 255 characters). */
export function motivo(cStat: CStat, detail?: string): string {
  const base: string = CSTAT[cStat];
  return clampMotivo(detail === undefined || detail === '' ? base : `${base} ${detail}`);
}

/** Keeps a text inside TMotivo: Latin-1 only, single spaces, no edge spaces, at most 255 characters. */
export function clampMotivo(text: string): string {
  const latin1 = text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[^\x20-\xff]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return latin1.length <= MAX_MOTIVO ? latin1 : `${latin1.slice(0, MAX_MOTIVO - 3).trimEnd()}...`;
}

// DANFSe of a national NFS-e on one A4 page, after the layout of the Emissor Nacional: header (DANFSe, access
// key, number, competência, emission, QR code to the public consultation), provider, tomador, intermediário,
// service, municipal and federal taxation, totals and complementary information; homologação and cancelled marks.
import { parseNfseOutput, type NfseOutputDocument, type NfseOutputParty } from '../nfse-model.ts';
import { drawQr, textLine, useFont, wrapText, type Doc } from './draw.ts';
import { renderPdf } from './document.ts';
import { box, formKit, formWatermarks, titleBar } from './form.ts';
import {
  formatCep,
  formatDate,
  formatDateTime,
  formatMoney,
  formatPhone,
  formatRate,
  formatTaxId,
} from './format.ts';

export interface DanfseInput {
  /** The authorized `<NFSe>` exactly as the national environment returned it. */
  nfseXml: string;
  /** Cancelled by its event (a separate document): printed with CANCELADA. */
  cancelled: boolean;
  /** Provider's logo, PNG or JPEG, fitted into the header. */
  logo?: Buffer;
}

import { nfseQrCodeUrl } from '../nfse-urls.ts';

export { NFSE_CONSULTA_PUBLICA, nfseQrCodeUrl } from '../nfse-urls.ts';

export const NFSE_HOMOLOGACAO_NOTICE = 'NFS-E EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL';

/** tribISSQN of TCTribMunicipal. */
const TRIB_ISSQN: Readonly<Record<string, string>> = {
  '1': 'Operação tributável',
  '2': 'Imunidade',
  '3': 'Exportação de serviço',
  '4': 'Não incidência',
};

/** tpRetISSQN of TCTribMunicipal. */
const RET_ISSQN: Readonly<Record<string, string>> = {
  '1': 'Não retido',
  '2': 'Retido pelo tomador',
  '3': 'Retido pelo intermediário',
};

const OP_SIMP_NAC: Readonly<Record<string, string>> = {
  '1': 'Não optante',
  '2': 'Optante - MEI',
  '3': 'Optante - ME/EPP',
};

const PAGE_W = 595.28;
const PAGE_H = 841.89;
const MARGIN = 20;
const X0 = MARGIN;
const W = PAGE_W - 2 * MARGIN;
const CELL_H = 22;
const TITLE_H = 11;
const GAP = 4;
const HEAD_H = 78;
const QR_SIZE = 66;
const TEXT_SIZE = 7;
const TEXT_LINE = 9;

const { cell, fieldRow } = formKit({ labelSize: 5.5, valueSize: 7.5, cellH: CELL_H, x0: X0, width: W });

function title(pdf: Doc, text: string, y: number): number {
  return titleBar(pdf, text, X0, y, W, TITLE_H);
}

function addressLine(p: NfseOutputParty): string {
  const a = p.address;
  if (a === null) return '';
  return [a.xLgr, a.nro, a.xCpl, a.xBairro].filter((s): s is string => s !== null && s !== '').join(', ');
}

function municipio(p: NfseOutputParty, names: ReadonlyMap<string, string>): string {
  const a = p.address;
  if (a === null || a.cMun === null) return '';
  const name = names.get(a.cMun);
  const city = name !== undefined ? `${name} (${a.cMun})` : a.cMun;
  return a.UF !== null ? `${city} - ${a.UF}` : city;
}

function taxId(p: NfseOutputParty): string {
  if (p.CNPJ === null && p.CPF === null) return p.NIF ?? '';
  return formatTaxId(p);
}

function party(
  pdf: Doc,
  y: number,
  heading: string,
  p: NfseOutputParty | null,
  names: Map<string, string>,
): number {
  y = title(pdf, heading, y);
  if (p === null) {
    cell(pdf, X0, y, W, '', 'NÃO IDENTIFICADO NA NFS-e', { h: 14 });
    return y + 14;
  }
  y = fieldRow(pdf, y, [
    { label: 'CNPJ / CPF / NIF', value: taxId(p), width: 130 },
    { label: 'INSCRIÇÃO MUNICIPAL', value: p.IM ?? '', width: 100 },
    { label: 'NOME / NOME EMPRESARIAL', value: p.xNome ?? '', bold: true },
  ]);
  return fieldRow(pdf, y, [
    { label: 'ENDEREÇO', value: addressLine(p) },
    { label: 'MUNICÍPIO', value: municipio(p, names), width: 105 },
    { label: 'CEP', value: formatCep(p.address?.CEP ?? null), width: 46 },
    { label: 'TELEFONE', value: formatPhone(p.fone), width: 66 },
    { label: 'E-MAIL', value: p.email ?? '', width: 160 },
  ]);
}

function complementary(doc: NfseOutputDocument): string {
  const parts: string[] = [];
  if (doc.tpAmb === '2') parts.push(`${NFSE_HOMOLOGACAO_NOTICE}.`);
  if (doc.xInfComp !== null) parts.push(doc.xInfComp);
  if (doc.cNBS !== null) parts.push(`NBS: ${doc.cNBS}${doc.xNBS !== null ? ` - ${doc.xNBS}` : ''}.`);
  if (doc.opSimpNac !== null) {
    parts.push(`Simples Nacional: ${OP_SIMP_NAC[doc.opSimpNac] ?? doc.opSimpNac}.`);
  }
  if (doc.pTotTribSN !== null) {
    parts.push(`Percentual aproximado dos tributos (Simples Nacional): ${formatRate(doc.pTotTribSN)}%.`);
  }
  return parts.join('\n');
}

function drawHeader(pdf: Doc, doc: NfseOutputDocument, logo: Buffer | undefined, y: number): number {
  const leftW = 150;
  const qrW = QR_SIZE + 14;
  const midW = W - leftW - qrW;
  box(pdf, X0, y, leftW, HEAD_H);
  if (logo !== undefined) {
    pdf.image(logo, X0 + 4, y + 4, { fit: [leftW - 8, 34], align: 'center', valign: 'center' });
  }
  useFont(pdf, 'bold', 18);
  textLine(pdf, 'DANFSe', X0, y + (logo !== undefined ? 40 : 16), leftW, 'center');
  useFont(pdf, 'regular', 7);
  textLine(pdf, 'Documento Auxiliar da NFS-e', X0, y + (logo !== undefined ? 60 : 40), leftW, 'center');

  const mx = X0 + leftW;
  box(pdf, mx, y, midW, HEAD_H);
  useFont(pdf, 'bold', 9);
  textLine(pdf, 'NOTA FISCAL DE SERVIÇO ELETRÔNICA - NFS-e', mx, y + 5, midW, 'center');
  useFont(pdf, 'regular', 6.5);
  textLine(pdf, 'Padrão Nacional', mx, y + 16, midW, 'center');
  cell(pdf, mx, y + HEAD_H - 2 * CELL_H, midW, 'CHAVE DE ACESSO DA NFS-e', doc.chave, {
    align: 'center',
    bold: true,
  });
  const w3 = midW / 3;
  const ry = y + HEAD_H - CELL_H;
  cell(pdf, mx, ry, w3, 'NÚMERO DA NFS-e', doc.nNFSe, { align: 'center', bold: true });
  cell(pdf, mx + w3, ry, w3, 'COMPETÊNCIA', formatDate(doc.dCompet), { align: 'center' });
  cell(pdf, mx + 2 * w3, ry, w3, 'DATA E HORA DA EMISSÃO', formatDateTime(doc.dhEmi), { align: 'center' });

  const qx = mx + midW;
  box(pdf, qx, y, qrW, HEAD_H);
  drawQr(pdf, nfseQrCodeUrl(doc.chave), qx + (qrW - QR_SIZE) / 2, y + 3, QR_SIZE);
  useFont(pdf, 'regular', 4.5);
  textLine(pdf, 'Consulte em nfse.gov.br', qx, y + HEAD_H - 8, qrW, 'center');
  return y + HEAD_H;
}

/**
 * Renders the DANFSe of an authorized NFS-e as a one-page A4 PDF.
 * @throws OutputParseError (as a rejection) when the XML is not an authorized national NFS-e.
 */
export function renderDanfse(input: DanfseInput): Promise<Buffer> {
  let doc: NfseOutputDocument;
  try {
    doc = parseNfseOutput(input.nfseXml);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  // The NFS-e names only the municipalities it describes; each name goes with its IBGE code.
  const names = new Map<string, string>();
  if (doc.emit.address?.cMun != null && doc.xLocEmi !== null) names.set(doc.emit.address.cMun, doc.xLocEmi);
  if (doc.cLocPrestacao !== null && doc.xLocPrestacao !== null)
    names.set(doc.cLocPrestacao, doc.xLocPrestacao);

  return renderPdf({ Title: `DANFSe ${doc.nNFSe}`, Author: doc.emit.xNome ?? '' }, (pdf) => {
    pdf.addPage({ size: 'A4', margin: 0 });
    formWatermarks(
      pdf,
      { w: PAGE_W, h: PAGE_H },
      {
        cancelled: input.cancelled ? 'CANCELADA' : null,
        homologacao: doc.tpAmb === '2' ? 'NFS-e de homologação' : null,
      },
    );
    let y = drawHeader(pdf, doc, input.logo, MARGIN);
    y = fieldRow(pdf, y, [
      { label: 'NÚMERO DA DPS', value: doc.nDPS },
      { label: 'SÉRIE DA DPS', value: doc.serie },
      { label: 'DATA E HORA DO PROCESSAMENTO', value: formatDateTime(doc.dhProc) },
      { label: 'LOCAL DE EMISSÃO', value: doc.xLocEmi ?? '' },
      { label: 'SITUAÇÃO', value: input.cancelled ? 'CANCELADA' : 'AUTORIZADA', bold: true },
    ]);
    y += GAP;
    y = party(pdf, y, 'EMITENTE DA NFS-e / PRESTADOR DO SERVIÇO', doc.emit, names);
    y += GAP;
    y = party(pdf, y, 'TOMADOR DO SERVIÇO', doc.toma, names);
    y += GAP;
    y = party(pdf, y, 'INTERMEDIÁRIO DO SERVIÇO', doc.interm, names);
    y += GAP;

    y = title(pdf, 'SERVIÇO PRESTADO', y);
    y = fieldRow(pdf, y, [
      { label: 'CÓDIGO DE TRIBUTAÇÃO NACIONAL', value: doc.cTribNac, width: 120, bold: true },
      { label: 'CÓDIGO DE TRIBUTAÇÃO MUNICIPAL', value: doc.cTribMun ?? '', width: 120 },
      { label: 'LOCAL DA PRESTAÇÃO', value: doc.xLocPrestacao ?? doc.cLocPrestacao ?? '' },
    ]);
    useFont(pdf, 'regular', TEXT_SIZE);
    const trib = doc.xTribNac !== null ? `${doc.cTribNac} - ${doc.xTribNac}` : doc.cTribNac;
    const descLines = [
      ...wrapText(pdf, `Tributação nacional: ${trib}`, W - 6),
      ...wrapText(pdf, doc.xDescServ, W - 6),
    ].slice(0, 12);
    const descH = 10 + descLines.length * TEXT_LINE + 3;
    box(pdf, X0, y, W, descH);
    useFont(pdf, 'regular', 5.5);
    textLine(pdf, 'DESCRIÇÃO DO SERVIÇO', X0 + 2, y + 1.5, W - 4);
    useFont(pdf, 'regular', TEXT_SIZE);
    descLines.forEach((line, k) => textLine(pdf, line, X0 + 3, y + 10 + k * TEXT_LINE, W - 6));
    y += descH + GAP;

    y = title(pdf, 'TRIBUTAÇÃO MUNICIPAL (ISSQN)', y);
    y = fieldRow(pdf, y, [
      { label: 'TRIBUTAÇÃO DO ISSQN', value: TRIB_ISSQN[doc.tribISSQN ?? ''] ?? doc.tribISSQN ?? '' },
      { label: 'MUNICÍPIO DE INCIDÊNCIA', value: doc.xLocIncid ?? '' },
      { label: 'RETENÇÃO DO ISSQN', value: RET_ISSQN[doc.tpRetISSQN ?? ''] ?? doc.tpRetISSQN ?? '' },
    ]);
    y = fieldRow(pdf, y, [
      { label: 'VALOR DO SERVIÇO (R$)', value: formatMoney(doc.vServ), align: 'right' },
      { label: 'DESCONTO INCONDICIONADO (R$)', value: formatMoney(doc.vDescIncond), align: 'right' },
      { label: 'BASE DE CÁLCULO DO ISSQN (R$)', value: formatMoney(doc.vBC), align: 'right' },
      { label: 'ALÍQUOTA APLICADA (%)', value: formatRate(doc.pAliqAplic), align: 'right' },
      { label: 'ISSQN APURADO (R$)', value: formatMoney(doc.vISSQN), align: 'right' },
    ]);
    y += GAP;

    y = title(pdf, 'TRIBUTAÇÃO FEDERAL', y);
    y = fieldRow(pdf, y, [
      { label: 'IRRF (R$)', value: formatMoney(doc.vRetIRRF), align: 'right' },
      { label: 'CONTRIBUIÇÃO PREVIDENCIÁRIA (R$)', value: formatMoney(doc.vRetCP), align: 'right' },
      { label: 'CSLL (R$)', value: formatMoney(doc.vRetCSLL), align: 'right' },
      { label: 'PIS (R$)', value: formatMoney(doc.vPis), align: 'right' },
      { label: 'COFINS (R$)', value: formatMoney(doc.vCofins), align: 'right' },
    ]);
    y += GAP;

    const ibs = doc.ibscbs;
    if (ibs !== null) {
      y = title(pdf, 'IBS E CBS (REFORMA TRIBUTÁRIA)', y);
      y = fieldRow(pdf, y, [
        {
          label: 'CST / CLASSIFICAÇÃO TRIBUTÁRIA',
          value: `${ibs.CST ?? ''} / ${ibs.cClassTrib ?? ''}`,
          width: 120,
        },
        { label: 'INDICADOR DA OPERAÇÃO', value: ibs.cIndOp ?? '', width: 90 },
        { label: 'LOCAL DE INCIDÊNCIA', value: ibs.xLocalidadeIncid ?? '' },
      ]);
      y = fieldRow(pdf, y, [
        { label: 'BASE DE CÁLCULO (R$)', value: formatMoney(ibs.vBC), align: 'right' },
        { label: 'CBS (%)', value: formatRate(ibs.pAliqEfetCBS), align: 'right' },
        { label: 'CBS (R$)', value: formatMoney(ibs.vCBS), align: 'right' },
        { label: 'IBS UF (%)', value: formatRate(ibs.pAliqEfetUF), align: 'right' },
        { label: 'IBS UF (R$)', value: formatMoney(ibs.vIBSUF), align: 'right' },
        { label: 'IBS MUNICIPAL (%)', value: formatRate(ibs.pAliqEfetMun), align: 'right' },
        { label: 'IBS MUNICIPAL (R$)', value: formatMoney(ibs.vIBSMun), align: 'right' },
      ]);
      y += GAP;
    }

    y = title(pdf, 'VALOR TOTAL DA NFS-e', y);
    y = fieldRow(pdf, y, [
      { label: 'VALOR DO SERVIÇO (R$)', value: formatMoney(doc.vServ), align: 'right' },
      { label: 'DESCONTO CONDICIONADO (R$)', value: formatMoney(doc.vDescCond), align: 'right' },
      { label: 'DESCONTO INCONDICIONADO (R$)', value: formatMoney(doc.vDescIncond), align: 'right' },
      { label: 'TOTAL DAS RETENÇÕES (R$)', value: formatMoney(doc.vTotalRet), align: 'right' },
      { label: 'VALOR LÍQUIDO DA NFS-e (R$)', value: formatMoney(doc.vLiq), align: 'right', bold: true },
    ]);
    y += GAP;

    y = title(pdf, 'INFORMAÇÕES COMPLEMENTARES', y);
    useFont(pdf, 'regular', TEXT_SIZE);
    const room = Math.max(1, Math.floor((PAGE_H - MARGIN - y - 6) / TEXT_LINE));
    const lines = wrapText(pdf, complementary(doc), W - 6).slice(0, room);
    const infoH = Math.max(3, lines.length) * TEXT_LINE + 6;
    box(pdf, X0, y, W, infoH);
    lines.forEach((line, k) => textLine(pdf, line, X0 + 3, y + 3 + k * TEXT_LINE, W - 6));
  });
}

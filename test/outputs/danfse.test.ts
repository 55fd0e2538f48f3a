// DANFSe PDFs of the real national NFS-e sample (homologação as issued, production by editing tpAmb, cancelled),
// read back the way a person or a scanner would: pdftotext for the text, pdfinfo for the page,
// pdftoppm + zbarimg for the QR code to the public consultation.
// BALCAO_UPDATE_EXAMPLES=1 also rewrites docs/danfse-example.png.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNfseOutput } from '../../src-main/outputs/nfse-model.ts';
import { OutputParseError } from '../../src-main/outputs/model.ts';
import { nfseQrCodeUrl, renderDanfse } from '../../src-main/outputs/pdf/danfse.ts';
import { renderDanfse as exported } from '../../src-main/outputs/pdf/index.ts';
import { projectRoot } from '../../src-main/paths.ts';
import { pdfFile, pdfInfo, pdfPng, pdfRawText, pdfText, zbar } from '../fixtures/outputs/pdf-tools.ts';
import { logoPng } from '../fixtures/outputs/logo.ts';

function sample(): string {
  return readFileSync(
    path.join(projectRoot, '..', 'shared', 'reference', 'samples', 'nfse', 'nfse.xml'),
    'utf8',
  );
}
const CHAVE = '15054862231305199000190000000000000225121645026250';

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function asProduction(xml: string): string {
  const edited = xml.replace('<tpAmb>2</tpAmb>', '<tpAmb>1</tpAmb>');
  expect(edited).not.toBe(xml);
  return edited;
}

/** The sample with the optional groups of the DPS filled in (a fixture edit; the signature no longer matches). */
function withOptionalGroups(xml: string): string {
  const edits: Array<[string, string]> = [
    [
      '<fone>91991230016</fone>',
      '<end><endNac><cMun>3550308</cMun><CEP>01001000</CEP></endNac><xLgr>Rua das Flores</xLgr><nro>100</nro>' +
        '<xCpl>Sala 2</xCpl><xBairro>Sé</xBairro></end><fone>91991230016</fone>',
    ],
    [
      '</toma>',
      '</toma><interm><CNPJ>11222333000181</CNPJ><xNome>Agência Intermediária Ltda</xNome></interm>',
    ],
    [
      '<cNBS>123012100</cNBS></cServ>',
      '<cNBS>123012100</cNBS></cServ><infoCompl><xInfComp>Pedido 4242 do cliente</xInfComp></infoCompl>',
    ],
    [
      '</tribMun>',
      '</tribMun><tribFed><piscofins><CST>01</CST><vPis>1.50</vPis><vCofins>6.90</vCofins></piscofins>' +
        '<vRetIRRF>3.45</vRetIRRF><vRetCSLL>2.30</vRetCSLL></tribFed>',
    ],
  ];
  let out = xml;
  for (const [from, to] of edits) {
    expect(out).toContain(from);
    out = out.replace(from, to);
  }
  return out;
}

describe('parseNfseOutput', () => {
  it('reads the national sample: key, numbers, parties, service and values as signed', () => {
    const doc = parseNfseOutput(sample());
    expect(doc).toMatchObject({
      chave: CHAVE,
      nNFSe: '2',
      tpAmb: '2',
      dhProc: '2025-12-03T09:51:59-03:00',
      dCompet: '2025-12-03',
      serie: '900',
      nDPS: '3',
      cTribNac: '040303',
      xDescServ: 'ultrassonografia',
      vServ: '230.00',
      vBC: '230.00',
      pAliqAplic: '5.00',
      vISSQN: '11.50',
      vLiq: '230.00',
      tpRetISSQN: '1',
      interm: null,
    });
    expect(doc.emit).toMatchObject({ CNPJ: '31305199000190', IM: '2348', xNome: 'DINAMARQUES T SANTOS' });
    expect(doc.emit.address).toMatchObject({
      xLgr: 'RUA INÊS SOARES',
      cMun: '1505486',
      UF: 'PA',
      CEP: '68485000',
    });
    expect(doc.toma).toMatchObject({ CPF: '76920500230', xNome: 'FRANCIONE DA ROCHA NASCIMENTO' });
  });

  it('refuses what is not an NFS-e', () => {
    expect(() => parseNfseOutput('<NFe/>')).toThrow(OutputParseError);
    expect(() => parseNfseOutput('<NFSe><infNFSe Id="NFS123"/></NFSe>')).toThrow(/50 digits/);
    expect(() => parseNfseOutput('not xml <')).toThrow(OutputParseError);
  });
});

describe('renderDanfse', () => {
  it('the homologação sample: header, key, number, parties, values, SEM VALOR FISCAL, QR to the consultation', async () => {
    const file = pdfFile(await exported({ nfseXml: sample(), cancelled: false }));
    expect(pdfInfo(file)).toMatchObject({ pages: 1, width: 595.28, height: 841.89 });
    const flat = oneLine(pdfText(file));
    for (const expected of [
      'DANFSe',
      'Documento Auxiliar da NFS-e',
      'CHAVE DE ACESSO DA NFS-e',
      CHAVE,
      'NÚMERO DA NFS-e',
      'COMPETÊNCIA',
      '03/12/2025',
      '03/12/2025 09:51:58',
      '03/12/2025 09:51:59',
      'DINAMARQUES T SANTOS',
      '31.305.199/0001-90',
      'RUA INÊS SOARES, 0, CENTRO',
      'Pacajá (1505486) - PA',
      '68485-000',
      'FRANCIONE DA ROCHA NASCIMENTO',
      '769.205.002-30',
      'francionnepark@hotmail.com',
      'NÃO IDENTIFICADO NA NFS-e',
      '040303',
      'ultrassonografia',
      'Clínicas, sanatórios',
      'Operação tributável',
      'Não retido',
      '230,00',
      '5,00',
      '11,50',
      'VALOR LÍQUIDO DA NFS-e',
      'NFS-E EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL',
      'AUTORIZADA',
    ]) {
      expect(flat).toContain(expected);
    }
    expect(flat).not.toContain('CANCELADA');
    expect(pdfRawText(file).startsWith('SEM VALOR FISCAL')).toBe(true);

    const png = pdfPng(file, 1, 200);
    expect(zbar(png, 'qrcode')).toEqual([`https://www.nfse.gov.br/consultapublica?chave=${CHAVE}`]);
    expect(nfseQrCodeUrl(CHAVE)).toBe(`https://www.nfse.gov.br/consultapublica?chave=${CHAVE}`);
    if (process.env['BALCAO_UPDATE_EXAMPLES'] === '1') {
      pdfPng(file, 1, 100, path.join(projectRoot, 'docs', 'danfse-example'));
    }
  });

  it('in production (tpAmb 1), with a logo: no SEM VALOR FISCAL, QR still decodes', async () => {
    const file = pdfFile(
      await renderDanfse({ nfseXml: asProduction(sample()), cancelled: false, logo: logoPng() }),
    );
    const flat = oneLine(pdfText(file));
    expect(flat).toContain(CHAVE);
    expect(flat).toContain('DANFSe');
    expect(flat).not.toContain('SEM VALOR FISCAL');
    expect(flat).not.toContain('HOMOLOGAÇÃO');
    expect(zbar(pdfPng(file, 1, 200), 'qrcode')).toEqual([nfseQrCodeUrl(CHAVE)]);
  });

  it('cancelled: the CANCELADA mark and situation', async () => {
    const file = pdfFile(await renderDanfse({ nfseXml: asProduction(sample()), cancelled: true }));
    const raw = pdfRawText(file);
    expect(raw.startsWith('CANCELADA')).toBe(true);
    expect(oneLine(pdfText(file))).toContain('CANCELADA');
    expect(raw).not.toContain('SEM VALOR FISCAL');
  });

  it('the groups the sample leaves out: tomador address, intermediário, federal taxes, complementary text', async () => {
    const xml = withOptionalGroups(sample());
    const doc = parseNfseOutput(xml);
    expect(doc.toma?.address).toMatchObject({ xLgr: 'Rua das Flores', cMun: '3550308', CEP: '01001000' });
    expect(doc.interm).toMatchObject({ CNPJ: '11222333000181', xNome: 'Agência Intermediária Ltda' });
    expect(doc).toMatchObject({ vRetIRRF: '3.45', vRetCSLL: '2.30', vPis: '1.50', vCofins: '6.90' });

    const file = pdfFile(await renderDanfse({ nfseXml: xml, cancelled: false }));
    expect(pdfInfo(file).pages).toBe(1);
    const flat = oneLine(pdfText(file));
    for (const expected of [
      'Rua das Flores, 100, Sala 2, Sé',
      '01001-000',
      // Only the end of the name: in a process that already printed a DANFSe, pdftotext reads the bold "c" of
      // "Agência" back as a space although the page shows it (the PDF's text map, not the drawing).
      'Intermediária Ltda',
      '11.222.333/0001-81',
      '3,45',
      '2,30',
      '1,50',
      '6,90',
      'Pedido 4242 do cliente',
    ]) {
      expect(flat).toContain(expected);
    }
    expect(flat).not.toContain('NÃO IDENTIFICADO NA NFS-e');
  });

  it('rejects what is not an NFS-e', async () => {
    await expect(renderDanfse({ nfseXml: '<CTe/>', cancelled: false })).rejects.toThrow(OutputParseError);
  });
});

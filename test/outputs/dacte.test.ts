// DACTE PDFs of CT-e built and signed by the pure core (prepareCte) and of the complete ACBr CT-e 4.00 sample,
// read back the way a person or a scanner would: pdftotext for the text, pdfinfo for pages and size,
// pdftoppm + zbarimg for the CODE-128C key barcode and the QR code of infCTeSupl.
// BALCAO_UPDATE_EXAMPLES=1 also rewrites docs/dacte-example.png from the authorized CT-e.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PreparedCte } from '../../src-main/fiscal/cte/prepare.ts';
import { cteProc } from '../../src-main/fiscal/cte/proc.ts';
import { parseCteOutput } from '../../src-main/outputs/cte-model.ts';
import { OutputParseError } from '../../src-main/outputs/model.ts';
import { formatChave, formatMoney, formatRate } from '../../src-main/outputs/pdf/format.ts';
import { renderDacte } from '../../src-main/outputs/pdf/index.ts';
import { projectRoot } from '../../src-main/paths.ts';
import { emitter } from '../fixtures/fiscal.ts';
import {
  bothFormsOfCarriedNfe,
  CTE_DESTINATARIO_TO_ESCAPE,
  protCTeFor,
  signedCte,
  supplierNfeKey as nfeKey,
} from '../fixtures/cte-sample.ts';
import {
  pdfFile,
  pdfImageCount,
  pdfInfo,
  pdfPng,
  pdfRawText,
  pdfText,
  zbar,
} from '../fixtures/outputs/pdf-tools.ts';
import { logoPng } from '../fixtures/outputs/logo.ts';

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** cteProc of a CTe authorized with `nProt` at `dhRecbto`, joined by the core's builder. */
function authorized(cte: PreparedCte, nProt: string, dhRecbto: string): string {
  return cteProc(cte.xml, protCTeFor(cte, { nProt, dhRecbto })).xml;
}

function sample(): string {
  return readFileSync(
    path.join(projectRoot, '..', 'shared', 'reference', 'samples', 'cte', 'XMLCompleto_CTe_400.xml'),
    'utf8',
  );
}
const SAMPLE_CHAVE = '35240118760500000000570010000000011121942170';
const SAMPLE_QR = `https://homologacao.nfe.fazenda.sp.gov.br/CTeConsulta/qrCode?chCTe=${SAMPLE_CHAVE}&tpAmb=2`;

describe('renderDacte', () => {
  it('an authorized CT-e (cteProc): identification, key barcode and QR, protocol, parties, values, NF-e keys, homologação', async () => {
    const cte = signedCte({
      destinatario: CTE_DESTINATARIO_TO_ESCAPE,
      docsOriginarios: bothFormsOfCarriedNfe(),
    });
    const proc = authorized(cte, '135260000004242', '2026-03-10T09:31:02-03:00');
    const file = pdfFile(await renderDacte({ cteXml: proc, cancelled: false, logo: logoPng() }));

    expect(pdfInfo(file)).toMatchObject({ pages: 1, width: 595.28, height: 841.89 });
    const flat = oneLine(pdfText(file));
    for (const expected of [
      'DACTE',
      'Documento Auxiliar do Conhecimento de Transporte Eletrônico',
      'RODOVIÁRIO',
      'DATA E HORA DE EMISSÃO',
      '10/03/2026 09:30:00',
      '000.000.042',
      '1/1',
      formatChave(cte.chave),
      'PROTOCOLO DE AUTORIZAÇÃO DE USO',
      '135260000004242 - 10/03/2026 09:31:02',
      'BALCAO TESTE LTDA',
      '6353 - Prestacao de servico de transporte',
      'Campinas - SP',
      'Belo Horizonte - MG',
      'Industria Modelo Ltda',
      '11.222.333/0001-81',
      '111222330446',
      'Comercio & Filhos <ME>',
      '529.982.247-25',
      'Avenida Afonso Pena, 1500 - Centro',
      'TOMADOR DO SERVIÇO',
      'REMETENTE',
      'Frete peso',
      '1.000,00',
      'Pedagio',
      '50,50',
      'GRIS',
      '200,00',
      'VALOR TOTAL DO SERVIÇO',
      'VALOR A RECEBER',
      '1.250,50',
      '00 - TRIBUTAÇÃO NORMAL DO ICMS',
      '12,00',
      '150,06',
      'DOCUMENTOS ORIGINÁRIOS',
      formatChave(nfeKey(101)),
      formatChave(nfeKey(102)),
      '001/000000101',
      'RNTRC DA EMPRESA',
      '12345678',
      'ESTE CONHECIMENTO DE TRANSPORTE ATENDE À LEGISLAÇÃO DE TRANSPORTE RODOVIÁRIO EM VIGOR',
      'CT-E EMITIDO EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL',
      'DECLARO QUE RECEBI OS VOLUMES DESTE CONHECIMENTO',
    ]) {
      expect(flat, expected).toContain(expected);
    }
    // IBS/CBS of the tax reform: a regime-normal carrier writes the group from 2026-01-05 on.
    const { ibsCbs, vTotDFe } = parseCteOutput(proc);
    if (ibsCbs === null || vTotDFe === null) throw new Error('the CT-e carries no IBS/CBS group');
    for (const expected of [
      'V. TOTAL DO CT-E C/ IBS/CBS',
      `${ibsCbs.CST} / ${ibsCbs.cClassTrib ?? ''}`,
      `${formatMoney(ibsCbs.vBC)} ${formatRate(ibsCbs.pIBSUF)} ${formatMoney(ibsCbs.vIBSUF)}`,
      `${formatRate(ibsCbs.pCBS)} ${formatMoney(ibsCbs.vCBS)} ${formatMoney(vTotDFe)}`,
    ]) {
      expect(flat, expected).toContain(expected);
    }
    expect(flat).not.toContain('CANCELADO');
    expect(flat).not.toContain('CONTINGÊNCIA');
    expect(flat).not.toContain('sem autorização de uso');
    // The watermark is drawn first (under the content), so it leads the content stream.
    expect(pdfRawText(file).startsWith('SEM VALOR FISCAL')).toBe(true);

    const png = pdfPng(file, 1, 200);
    expect(zbar(png, 'code128')).toEqual([cte.chave]);
    expect(zbar(png, 'qrcode')).toEqual([cte.qrCode]);
    expect(pdfImageCount(file)).toBe(1);
    if (process.env['BALCAO_UPDATE_EXAMPLES'] === '1') {
      pdfPng(file, 1, 100, path.join(projectRoot, 'docs', 'dacte-example'));
    }
  });

  it('the complete ACBr CT-e 4.00 sample: expedidor, recebedor, toma4, cargo quantities, ObsCont, ICMS90, no protocol', async () => {
    const file = pdfFile(await renderDacte({ cteXml: sample(), cancelled: false }));
    const flat = oneLine(pdfText(file));
    for (const expected of [
      'RAZAO SOCIAL DE TESTE',
      '18.760.500/0000-00',
      '687090000000',
      'SITUAÇÃO',
      'CT-e sem autorização de uso',
      '6932 - PRESTACAO SERVICO',
      'CORONEL FABRICIANO - MG',
      'ABARE - BA',
      'EXPEDIDOR',
      'xCpl Exped',
      'RECEBEDOR',
      'xCPL Receb',
      'DESTINATÁRIO',
      'TOMADOR DO SERVIÇO',
      'OUTROS',
      'ACOUGUE E SUPERMERCADO SOUZA LTDA',
      '10.242.141/0001-74',
      '0010834420031',
      'Produto Predominante',
      'Pacotes',
      '5.000,00',
      'Kg (KG)',
      '10,0000',
      'Caixa (UNIDADE)',
      '5,0000',
      'Litros5 (LITROS)',
      'DFRNER KRTJ',
      '100,00',
      'DFRNER TJKR',
      '11,11',
      '90 - ICMS OUTROS',
      '7,00',
      '10,00',
      '4221 0117 0894 8400 0190 5501 1000 0091 0013 7141 3248',
      '011/000009100',
      'Observacao livre',
      'ObsCont01: Valor de ObsCont01',
      'ObsCont02: Valor de ObsCont02',
      'ObsFisco01: Valor de ObsFisco01',
      'Lei da Transparencia',
      '12345678',
      'CT-E EMITIDO EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL',
    ]) {
      expect(flat, expected).toContain(expected);
    }
    expect(flat).not.toContain('PROTOCOLO DE AUTORIZAÇÃO DE USO');
    const png = pdfPng(file, 1, 200);
    expect(zbar(png, 'code128')).toEqual([SAMPLE_CHAVE]);
    expect(zbar(png, 'qrcode')).toEqual([SAMPLE_QR]);
  });

  it('a real third-party cteProc (sped-da sample, layout 2.00) with its protocol, cancelled', async () => {
    const proc = readFileSync(
      path.join(projectRoot, '..', 'shared', 'reference', 'samples', 'cte', 'cte_hom_prot_canc.xml'),
      'utf8',
    );
    const chave = '41160379569018000169570010000010031820538334';
    const file = pdfFile(await renderDacte({ cteXml: proc, cancelled: true }));
    const text = oneLine(pdfText(file));
    for (const expected of [
      'PROTOCOLO DE AUTORIZAÇÃO DE USO',
      '141160000021633 - 10/03/2016 15:26:04',
      formatChave(chave),
      'EMPRESA DEMONSTRACAO LTDA',
      '79.569.018/0001-69',
      'Francisco Beltrao - PR',
      'Campo Ere - SC',
      '4115 0806 1614 9400 0172 5500 1000 0001 2013 5474 5483',
      '001/000000120',
      'DATA PREVISTA DE ENTREGA',
      '16/03/2016',
      '1/1',
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(pdfRawText(file).startsWith('CANCELADO SEM VALOR FISCAL')).toBe(true);
    const png = pdfPng(file, 1, 200);
    expect(zbar(png, 'code128')).toEqual([chave]);
    // Layout 2.00 had no infCTeSupl: no QR code is drawn.
    expect(zbar(png, 'qrcode')).toEqual([]);
  });

  it('the protocol given by the caller is printed for a bare signed CTe', async () => {
    const cte = signedCte();
    const file = pdfFile(
      await renderDacte({
        cteXml: cte.xml,
        protocol: { nProt: '135260000009999', dhRecbto: '2026-03-10T09:40:00-03:00' },
        cancelled: false,
      }),
    );
    expect(oneLine(pdfText(file))).toContain('135260000009999 - 10/03/2026 09:40:00');
  });

  it('a denied protocol is not printed as an authorization', async () => {
    const cte = signedCte();
    const denied = cteProc(
      cte.xml,
      protCTeFor(cte, { cStat: '301', xMotivo: 'Uso Denegado: Irregularidade fiscal do emitente' }),
    ).xml;
    expect(parseCteOutput(denied).protocol).toMatchObject({ cStat: '301', nProt: null });
    const text = oneLine(pdfText(pdfFile(await renderDacte({ cteXml: denied, cancelled: false }))));
    expect(text).toContain('CT-e sem autorização de uso');
    expect(text).not.toContain('PROTOCOLO DE AUTORIZAÇÃO DE USO');
  });

  it('names the ICMS situation of ICMS45 (isenção) and of the Simples Nacional', async () => {
    const isenta = signedCte({}, { icms: { CST: '40' } });
    expect(oneLine(pdfText(pdfFile(await renderDacte({ cteXml: isenta.xml, cancelled: false }))))).toContain(
      '40 - ICMS ISENÇÃO',
    );
    const simples = signedCte({}, { emit: emitter(1), icms: undefined });
    expect(parseCteOutput(simples.xml).icms?.group).toBe('ICMSSN');
    expect(oneLine(pdfText(pdfFile(await renderDacte({ cteXml: simples.xml, cancelled: false }))))).toContain(
      'SIMPLES NACIONAL',
    );
  });

  it('a cancelled CT-e shows CANCELADO', async () => {
    const cte = signedCte();
    const proc = authorized(cte, '135260000004243', '2026-03-10T09:31:02-03:00');
    const file = pdfFile(await renderDacte({ cteXml: proc, cancelled: true }));
    expect(pdfRawText(file).startsWith('CANCELADO SEM VALOR FISCAL')).toBe(true);
    expect(oneLine(pdfText(file))).toContain('135260000004243');
    expect(zbar(pdfPng(file, 1, 200), 'code128')).toEqual([cte.chave]);
  });

  it('in production (tpAmb 1) there is no SEM VALOR FISCAL', async () => {
    const cte = signedCte({}, { tpAmb: 1 });
    const file = pdfFile(await renderDacte({ cteXml: cte.xml, cancelled: false }));
    const raw = pdfRawText(file);
    expect(raw).not.toContain('SEM VALOR FISCAL');
    expect(raw).not.toContain('HOMOLOGAÇÃO');
    expect(raw).toContain('CT-e sem autorização de uso');
  });

  it('contingency SVC-RS (tpEmis 7) and SVC-SP (tpEmis 8): the mark, dhCont and xJust, with and without protocol', async () => {
    for (const [tpEmis, mode] of [
      [7, 'SVC-RS'],
      [8, 'SVC-SP'],
    ] as const) {
      const cte = signedCte(
        {},
        {
          contingency: {
            tpEmis,
            dhCont: '2026-03-10T09:00:00-03:00',
            xJust: 'SEFAZ de origem sem resposta ha mais de uma hora',
          },
        },
      );
      // The 35th digit of the key is tpEmis.
      expect(cte.chave[34]).toBe(String(tpEmis));
      const pending = pdfFile(await renderDacte({ cteXml: cte.xml, cancelled: false }));
      const text = oneLine(pdfText(pending));
      expect(text).toContain(`EMITIDO EM CONTINGÊNCIA (${mode})`);
      expect(text).toContain('PENDENTE DE AUTORIZAÇÃO');
      expect(text).toContain('Entrada em contingência: 10/03/2026 09:00:00');
      expect(text).toContain('Justificativa: SEFAZ de origem sem resposta ha mais de uma hora');
      expect(text).not.toContain('CT-e sem autorização de uso');
      expect(zbar(pdfPng(pending, 1, 200), 'code128')).toEqual([cte.chave]);

      // Authorized by the virtual authority: the protocol, and still the contingency mark.
      const svc = pdfFile(
        await renderDacte({
          cteXml: authorized(cte, '935260000000777', '2026-03-10T09:30:09-03:00'),
          cancelled: false,
        }),
      );
      const svcText = oneLine(pdfText(svc));
      expect(svcText).toContain('935260000000777 - 10/03/2026 09:30:09');
      expect(svcText).toContain(`EMITIDO EM CONTINGÊNCIA (${mode})`);
      expect(svcText).not.toContain('PENDENTE DE AUTORIZAÇÃO');
    }
  });

  it('150 carried NF-e run over numbered pages; every key appears once; each page repeats the identification', async () => {
    const keys = Array.from({ length: 150 }, (_, i) => nfeKey(1000 + i));
    const cte = signedCte({ docsOriginarios: keys });
    const file = pdfFile(await renderDacte({ cteXml: cte.xml, cancelled: false }));
    const { pages } = pdfInfo(file);
    expect(pages).toBeGreaterThanOrEqual(2);
    let all = '';
    for (let page = 1; page <= pages; page++) {
      const text = oneLine(pdfText(file, page));
      expect(text, `page ${page}`).toContain(`${page}/${pages}`);
      expect(text, `page ${page}`).toContain(formatChave(cte.chave));
      expect(text, `page ${page}`).toContain(
        page === 1 ? 'DOCUMENTOS ORIGINÁRIOS' : 'DOCUMENTOS ORIGINÁRIOS (CONTINUAÇÃO)',
      );
      all += text;
    }
    for (const key of keys) expect(all.split(formatChave(key)).length - 1, key).toBe(1);
    // The parties and values are on page 1 only; the last page's barcode and QR code still read.
    expect(oneLine(pdfText(file, 2))).not.toContain('COMPONENTES DO VALOR');
    const last = pdfPng(file, pages, 200);
    expect(zbar(last, 'code128')).toEqual([cte.chave]);
    expect(zbar(last, 'qrcode')).toEqual([cte.qrCode]);
  });

  it('observations use the room the documents leave on page 1, then continue on the next page, every word once', async () => {
    const words = Array.from({ length: 1200 }, (_, i) => `palavra${i}`);
    const xml = sample().replace('<xObs>Observacao livre</xObs>', `<xObs>${words.join(' ')}</xObs>`);
    const file = pdfFile(await renderDacte({ cteXml: xml, cancelled: false }));
    const { pages } = pdfInfo(file);
    expect(pages).toBe(2);
    const page1 = oneLine(pdfText(file, 1));
    // Far more than the 8 lines the box has when the documents carried need the space.
    expect(page1).toContain('palavra200');
    const page2 = oneLine(pdfText(file, 2));
    expect(page2).toContain('2/2');
    expect(page2).toContain('OBSERVAÇÕES (CONTINUAÇÃO)');
    expect(page2).toContain('palavra1199');
    const all = oneLine(pdfText(file));
    for (const word of words) expect(all.split(new RegExp(`\\b${word}\\b`)).length - 1, word).toBe(1);
  });

  it('an alphanumeric-CNPJ emitter (2026): the key decodes back from its Code 128', async () => {
    const cte = signedCte({}, { emit: { ...emitter(3), CNPJ: '12ABC34501DE35' } });
    expect(cte.chave).toMatch(/^\d{6}12ABC34501DE35/);
    const file = pdfFile(await renderDacte({ cteXml: cte.xml, cancelled: false }));
    expect(oneLine(pdfText(file))).toContain('12.ABC.345/01DE-35');
    expect(zbar(pdfPng(file, 1, 200), 'code128')).toEqual([cte.chave]);
  });

  it('refuses an NF-e and reads the model from a cteProc', async () => {
    const nfe = readFileSync(
      path.join(projectRoot, '..', 'shared', 'reference', 'samples', 'nfe', 'nfe_layout4_com_prot.xml'),
      'utf8',
    );
    await expect(renderDacte({ cteXml: nfe, cancelled: false })).rejects.toThrow(OutputParseError);
    const cte = signedCte({ docsOriginarios: bothFormsOfCarriedNfe() });
    const model = parseCteOutput(authorized(cte, '135260000000001', '2026-03-10T09:31:02-03:00'));
    expect(model).toMatchObject({
      chave: cte.chave,
      toma: '0',
      tomador: { xNome: 'Industria Modelo Ltda' },
      vPrest: { vTPrest: '1250.50', vRec: '1250.50' },
      icms: { group: 'ICMS00', CST: '00', vBC: '1250.50', pICMS: '12.00', vICMS: '150.06' },
      protocol: { nProt: '135260000000001', cStat: '100' },
      qrCodCTe: cte.qrCode,
    });
    expect(model.docs).toEqual([
      { tipo: 'NF-e', chave: nfeKey(101) },
      { tipo: 'NF-e', chave: nfeKey(102) },
    ]);
  });
});

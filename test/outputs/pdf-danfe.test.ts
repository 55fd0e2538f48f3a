// DANFE PDFs of notes issued through the running service and authorized by the embedded sandbox (and of
// contingency notes signed by the same pipeline), read back with pdftotext, pdfinfo, pdfimages and zbarimg.
// BALCAO_UPDATE_EXAMPLES=1 also rewrites docs/danfe-example.png from the multi-page note.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseOutputDocument } from '../../src-main/outputs/model.ts';
import { formatChave, formatDateTime } from '../../src-main/outputs/pdf/format.ts';
import { renderDanfe } from '../../src-main/outputs/pdf/index.ts';
import { projectRoot } from '../../src-main/paths.ts';
import { startHarness, type Harness } from '../api/harness.ts';
import { authorizedNfe, cancelNote, createCompany, signedNote } from '../fixtures/outputs/notes.ts';
import {
  pdfFile,
  pdfFonts,
  pdfImageCount,
  pdfInfo,
  pdfPng,
  pdfRawText,
  pdfText,
  zbar,
} from '../fixtures/outputs/pdf-tools.ts';
import { logoPng } from '../fixtures/outputs/logo.ts';

let h: Harness;
let normal: string;
beforeAll(async () => {
  h = await startHarness();
  normal = await createCompany(h, '11444777000161', 3, 'COMÉRCIO DE FERRAGENS AÇORIANA LTDA');
});
afterAll(() => h.stop());

const tributacao = {
  ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '18.00' },
  PIS: { CST: '01', pPIS: '1.65' },
  COFINS: { CST: '01', pCOFINS: '7.60' },
  IPI: { CST: '50', cEnq: '999', pIPI: '5.00' },
};
const customer = {
  cnpj: '11222333000181',
  nome: 'Mercado Central Ltda',
  ie: '110042490114',
  endereco: {
    logradouro: 'Rua B',
    numero: '2',
    bairro: 'Centro',
    codigoMunicipio: '3550308',
    uf: 'SP',
    cep: '01000000',
  },
};

function item(codigo: string, descricao: string, quantidade: number | string, valor: string) {
  return {
    codigo,
    descricao,
    ncm: '73181500',
    unidade: 'CX',
    quantidade,
    valor_unitario: valor,
    cfop: '5102',
    tributacao,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

describe('renderDanfe', () => {
  it('an authorized NF-e: identification, key barcode, protocol, totals, homologação watermark, logo', async () => {
    const issued = await authorizedNfe(
      h,
      {
        naturezaOperacao: 'Venda de mercadoria',
        customer,
        itens: [
          item('A-100', 'Parafuso sextavado aço inox', 3, '10.00'),
          item('B-200', 'Porca', '7.5', '3.3333'),
        ],
        valorFrete: '10.00',
        valorDesconto: '1.00',
        modalidadeFrete: 0,
        informacoesAdicionais: 'Pedido 4471 - entregar no depósito dos fundos.',
        // Paid in cash: only cash gives change (cStat 869 otherwise).
        pagamentos: [{ forma: '01', valor: '100.00' }],
      },
      normal,
    );
    const doc = parseOutputDocument(issued.xml);
    const file = pdfFile(await renderDanfe(doc, { logo: logoPng() }));

    expect(pdfInfo(file)).toMatchObject({ pages: 1, width: 595.28, height: 841.89 });
    const text = pdfText(file);
    const flat = oneLine(text);
    for (const expected of [
      'DANFE',
      'Documento Auxiliar da Nota',
      '0 - ENTRADA',
      '1 - SAÍDA',
      'FOLHA 1/1',
      `Nº ${doc.nNF.padStart(9, '0').replace(/(\d{3})(\d{3})(\d{3})/, '$1.$2.$3')}`,
      'SÉRIE 001',
      formatChave(issued.chave),
      `${issued.protocolo ?? '?'} - ${formatDateTime(doc.protocol?.dhRecbto ?? null)}`,
      'COMÉRCIO DE FERRAGENS AÇORIANA LTDA',
      '11.444.777/0001-61',
      'NATUREZA DA OPERAÇÃO',
      'Venda de mercadoria',
      'PROTOCOLO DE AUTORIZAÇÃO DE USO',
      'NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL',
      '11.222.333/0001-81',
      'Parafuso sextavado aço inox',
      'A-100',
      '7,5',
      '3,3333',
      'V. TOTAL DA NOTA',
      'Pedido 4471 - entregar no depósito dos fundos.',
      '0 - Remetente (CIF)',
      'SEM VALOR FISCAL',
      'EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO',
    ]) {
      expect(flat, expected).toContain(expected);
    }
    // Totals exactly as signed, Brazilian style.
    const vNF = doc.totals.ICMSTot.vNF.replace('.', ',');
    expect(flat).toContain(vNF);
    expect(flat).not.toContain('CANCELADA');
    // The watermark is drawn first (under the content), so it leads the content stream.
    expect(pdfRawText(file).startsWith('SEM VALOR FISCAL')).toBe(true);
    expect(flat).not.toContain('CONTINGÊNCIA');

    expect(zbar(pdfPng(file, 1, 200), 'code128')).toEqual([issued.chave]);
    expect(pdfImageCount(file)).toBe(1);
    expect(pdfFonts(file)).toMatch(/DejaVuSansCondensed-Bold\s+CID TrueType\s+Identity-H\s+yes\s+yes/);
  });

  it('120 items run over numbered pages; every item appears once; each page repeats the key', async () => {
    const itens = Array.from({ length: 120 }, (_, i) => {
      const code = `P${String(i + 1).padStart(4, '0')}`;
      const long = i % 9 === 4;
      return item(
        code,
        long
          ? `Parafuso sextavado de aço inoxidável com porca e arruela de pressão, caixa com cem unidades, lote ${i}`
          : `Produto de teste número ${i + 1}`,
        (i % 5) + 1,
        '2.50',
      );
    });
    const issued = await authorizedNfe(
      h,
      {
        naturezaOperacao: 'Venda de mercadoria',
        customer,
        itens,
        // Cash: the change of a payment above the total can only be given in cash.
        pagamentos: [{ forma: '01', valor: '1000.00' }],
      },
      normal,
    );
    const doc = parseOutputDocument(issued.xml);
    expect(doc.items).toHaveLength(120);
    const file = pdfFile(await renderDanfe(doc));
    const { pages } = pdfInfo(file);
    expect(pages).toBeGreaterThanOrEqual(3);

    let all = '';
    for (let page = 1; page <= pages; page++) {
      const text = oneLine(pdfText(file, page));
      expect(text, `page ${page}`).toContain(`FOLHA ${page}/${pages}`);
      expect(text, `page ${page}`).toContain(formatChave(issued.chave));
      expect(text, `page ${page}`).toContain('DADOS DOS PRODUTOS / SERVIÇOS');
      all += text;
    }
    for (const it of itens) {
      expect(all.split(it.codigo).length - 1, it.codigo).toBe(1);
    }
    // The carrier and tax blocks are on page 1 only; the last page's barcode still reads the key.
    expect(oneLine(pdfText(file, 2))).not.toContain('CÁLCULO DO IMPOSTO');
    expect(zbar(pdfPng(file, pages, 200), 'code128')).toEqual([issued.chave]);

    if (process.env['BALCAO_UPDATE_EXAMPLES'] === '1') {
      pdfPng(file, 1, 100, path.join(projectRoot, 'docs', 'danfe-example'));
    }
  });

  it('a cancelled NF-e shows CANCELADA', async () => {
    const issued = await authorizedNfe(
      h,
      {
        naturezaOperacao: 'Venda',
        customer,
        itens: [item('C1', 'Chave de fenda', 1, '12.00')],
        pagamentos: [{ forma: '01', valor: '12.60' }],
      },
      normal,
    );
    await cancelNote(h, issued.id);
    const state = (await h.request('GET', `/v1/nfe/${issued.id}`)).body as { status: string };
    expect(state.status).toBe('cancelada');
    const doc = parseOutputDocument(issued.xml, { cancelled: state.status === 'cancelada' });
    const file = pdfFile(await renderDanfe(doc));
    expect(pdfRawText(file).startsWith('CANCELADA SEM VALOR FISCAL')).toBe(true);
    expect(oneLine(pdfText(file))).toContain(issued.protocolo ?? '?');
  });

  it('contingency NF-e (SVC-AN tpEmis 6, SVC-RS tpEmis 7) without protocol shows the contingency wording', async () => {
    for (const [tpEmis, mode] of [
      [6, 'SVC-AN'],
      [7, 'SVC-RS'],
    ] as const) {
      const xml = signedNote(
        55,
        {
          naturezaOperacao: 'Venda',
          customer_id: 'cus_pj',
          itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
          pagamentos: [{ forma: '01', valor: '18.90' }],
        },
        {
          tpEmis,
          contingency: {
            dhCont: new Date('2026-11-22T15:00:00Z'),
            xJust: 'SEFAZ autorizadora fora do ar ha mais de uma hora',
          },
        },
      );
      const doc = parseOutputDocument(xml);
      expect(doc.protocol).toBeNull();
      const file = pdfFile(await renderDanfe(doc));
      const text = oneLine(pdfText(file));
      expect(text).toContain(`EMITIDA EM CONTINGÊNCIA (${mode})`);
      expect(text).toContain('PENDENTE DE AUTORIZAÇÃO');
      expect(text).toContain('Entrada em contingência: 22/11/2026 12:00:00');
      expect(text).toContain('Justificativa: SEFAZ autorizadora fora do ar ha mais de uma hora');
      expect(text).not.toContain('PROTOCOLO DE AUTORIZAÇÃO DE USO');
      expect(zbar(pdfPng(file, 1, 200), 'code128')).toEqual([doc.chave]);
    }
  });

  it('an alphanumeric-CNPJ key (2026) decodes back from its Code 128', async () => {
    const company = await createCompany(h, '12ABC34501DE35', 3, 'LOJA ALFANUMERICA LTDA');
    const issued = await authorizedNfe(
      h,
      {
        naturezaOperacao: 'Venda',
        customer,
        itens: [item('X1', 'Martelo', 1, '45.00')],
        pagamentos: [{ forma: '01', valor: '47.25' }],
      },
      company,
    );
    expect(issued.chave).toMatch(/^\d{6}12ABC34501DE35/);
    const doc = parseOutputDocument(issued.xml);
    const file = pdfFile(await renderDanfe(doc));
    expect(oneLine(pdfText(file))).toContain('12.ABC.345/01DE-35');
    expect(zbar(pdfPng(file, 1, 200), 'code128')).toEqual([issued.chave]);
  });

  it('a real third-party nfeProc (sped-nfe sample): invoice and duplicata, Simples CSOSN, dhSaiEnt', async () => {
    const sample = readFileSync(
      path.join(projectRoot, '..', 'shared', 'reference', 'samples', 'nfe', 'nfe_layout4_com_prot.xml'),
      'utf8',
    );
    const doc = parseOutputDocument(sample);
    expect(doc.cobr?.dup).toEqual([{ nDup: '001', dVenc: '2018-12-31', vDup: '1.00' }]);
    const file = pdfFile(await renderDanfe(doc));
    const text = oneLine(pdfText(file));
    for (const expected of [
      'FATURA / DUPLICATAS',
      'Núm.: 001',
      'Venc.: 31/12/2018',
      'Valor: R$ 1,00',
      '0202',
      '10,0000',
      '50,00',
      '500,00',
      '143180006932433 - 25/09/2018 16:21:05',
      '25/09/2018',
      '15:14:00',
      '9 - Sem Transporte',
      'FOLHA 1/1',
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(zbar(pdfPng(file, 1, 200), 'code128')).toEqual([doc.chave]);
  });

  it('additional information longer than its box continues on the next page, every word printed once', async () => {
    const words = Array.from({ length: 440 }, (_, i) => `palavra${i}`);
    const xml = signedNote(55, {
      naturezaOperacao: 'Venda',
      customer_id: 'cus_pj',
      itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
      informacoesAdicionais: words.join(' '),
      pagamentos: [{ forma: '01', valor: '18.90' }],
    });
    const doc = parseOutputDocument(xml);
    const file = pdfFile(await renderDanfe(doc));
    const { pages } = pdfInfo(file);
    expect(pages).toBe(2);
    const page2 = oneLine(pdfText(file, 2));
    expect(page2).toContain('FOLHA 2/2');
    expect(page2).toContain('DADOS ADICIONAIS (CONTINUAÇÃO)');
    const all = oneLine(pdfText(file));
    for (const word of words) expect(all.split(new RegExp(`\\b${word}\\b`)).length - 1, word).toBe(1);
  });

  it('refuses an NFC-e', async () => {
    const xml = signedNote(65, {
      itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
      pagamentos: [{ forma: '01', valor: '18.90' }],
    });
    await expect(renderDanfe(parseOutputDocument(xml))).rejects.toThrow(RangeError);
  });
});

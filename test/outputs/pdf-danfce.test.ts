// DANFE NFC-e PDFs (80 and 58 mm) of sales made through the running service and its embedded sandbox
// authority, online and in offline contingency, read back with pdftotext, pdfinfo, pdffonts and zbarimg.
// BALCAO_UPDATE_EXAMPLES=1 also rewrites docs/danfce-80mm-example.png.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOutputDocument } from '../../src-main/outputs/model.ts';
import {
  formatChave,
  formatDateTime,
  formatQuantity,
  formatTaxId,
} from '../../src-main/outputs/pdf/format.ts';
import { renderDanfce } from '../../src-main/outputs/pdf/index.ts';
import { projectRoot } from '../../src-main/paths.ts';
import { startHarness, type Harness } from '../api/harness.ts';
import {
  authorizedNfce,
  cancelNote,
  settle,
  signedNote,
  xmlOf,
  type DocBody,
} from '../fixtures/outputs/notes.ts';
import {
  pdfFile,
  pdfFonts,
  pdfInfo,
  pdfPng,
  pdfRawText,
  pdfText,
  zbar,
} from '../fixtures/outputs/pdf-tools.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const simples = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const agua = {
  codigo: 'A1',
  descricao: 'Água mineral 500 ml',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 2,
  valor_unitario: '3.50',
  cfop: '5102',
  tributacao: simples,
};
const pao = {
  codigo: 'PQ1',
  descricao: 'Pão de queijo congelado',
  ncm: '19059090',
  unidade: 'KG',
  quantidade: '0.350',
  valor_unitario: '39.90',
  cfop: '5102',
  tributacao: simples,
};
const MM = 72 / 25.4;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

describe('renderDanfce', () => {
  it('an authorized sale with CPF, card, cash and change at 80 and 58 mm: QR, key, payments, consumer', async () => {
    const issued = await authorizedNfce(h, {
      natureza_operacao: 'VENDA AO CONSUMIDOR',
      cpf_consumidor: '529.982.247-25',
      itens: [agua, pao],
      pagamentos: [
        { metodo: 'cartao_credito', valor: '5.00' },
        { metodo: 'dinheiro', valor: '20.00' },
      ],
    });
    const doc = parseOutputDocument(issued.xml);
    expect(doc.totals.ICMSTot.vNF).toBe('20.97');
    const qrCode = doc.infNFeSupl?.qrCode ?? '';
    expect(qrCode).toMatch(/^https:\/\//);

    for (const width of [80, 58] as const) {
      const file = pdfFile(await renderDanfce(doc, { width }));
      const info = pdfInfo(file);
      expect(info.pages).toBe(1);
      expect(info.width).toBeCloseTo(width * MM, 1);
      expect(info.height).toBeGreaterThan(info.width);

      const png = pdfPng(file, 1, 100);
      expect(zbar(png, 'qrcode'), `${width} mm`).toEqual([qrCode]);
      const text = oneLine(pdfText(file));
      for (const expected of [
        'DANFE NFC-e - Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica',
        doc.emit.xNome,
        formatTaxId(doc.emit),
        // Homologação replaces the first item's name (NT 2015.002); the second keeps its accents.
        'A1 NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL',
        'PQ1 Pão de queijo congelado',
        `${formatQuantity(doc.items[1]?.qCom ?? '?')} KG`,
        'x 39,90',
        '13,97',
        'Qtde. total de itens 2',
        'Valor total R$ 20,97',
        'Valor a Pagar R$ 20,97',
        'FORMA PAGAMENTO VALOR PAGO R$',
        'Cartão de Crédito 5,00',
        'Dinheiro 20,00',
        'Troco R$ 4,03',
        'Consulte pela Chave de Acesso em',
        formatChave(doc.chave),
        'CONSUMIDOR - CPF: 529.982.247-25',
        `NFC-e nº ${doc.nNF.padStart(9, '0')} Série 001 ${formatDateTime(doc.dhEmi)}`,
        `Protocolo de autorização: ${issued.protocolo ?? '?'}`,
        `Data de autorização: ${formatDateTime(doc.protocol?.dhRecbto ?? null)}`,
        'EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL',
      ]) {
        expect(text, `${width} mm: ${expected}`).toContain(expected);
      }
      // The consultation URL may wrap at 58 mm: compare without the line breaks.
      expect(text.replace(/ /g, '')).toContain(doc.infNFeSupl?.urlChave ?? '?');
      expect(text).not.toContain('CONTINGÊNCIA');
      expect(text).not.toContain('CANCELADA');
      expect(pdfFonts(file)).toMatch(/DejaVuSansCondensed\s+CID TrueType\s+Identity-H\s+yes\s+yes/);
      if (width === 80 && process.env['BALCAO_UPDATE_EXAMPLES'] === '1') {
        pdfPng(file, 1, 100, path.join(projectRoot, 'docs', 'danfce-80mm-example'));
      }
    }
  });

  it('an anonymous sale prints CONSUMIDOR NÃO IDENTIFICADO', async () => {
    const issued = await authorizedNfce(h, { itens: [agua], pagamentos: [{ metodo: 'pix', valor: '7.00' }] });
    const doc = parseOutputDocument(issued.xml);
    const file = pdfFile(await renderDanfce(doc, { width: 58 }));
    const text = oneLine(pdfText(file));
    expect(text).toContain('CONSUMIDOR NÃO IDENTIFICADO');
    expect(text).toContain('Pagamento Instantâneo (PIX) – Dinâmico 7,00');
    expect(text).not.toContain('Troco');
    expect(zbar(pdfPng(file, 1, 100), 'qrcode')).toEqual([doc.infNFeSupl?.qrCode]);
  });

  it('an offline sale (tpEmis 9, no protocol) says EMITIDA EM CONTINGÊNCIA / Pendente de autorização; later the protocol', async () => {
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('the harness runs the embedded sandbox');
    await sandbox.faults.setOnline(false);
    let sale: DocBody;
    try {
      const res = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
        json: {
          natureza_operacao: 'VENDA AO CONSUMIDOR',
          cpf_consumidor: '529.982.247-25',
          itens: [pao],
          pagamentos: [{ metodo: 'dinheiro', valor: '15.00' }],
        },
      });
      expect(res.status).toBe(201);
      sale = res.body as DocBody;
      expect(sale.status).toBe('contingencia');
    } finally {
      await sandbox.faults.setOnline(true);
    }
    const offline = parseOutputDocument(await xmlOf(h, sale.id));
    expect(offline).toMatchObject({ tpEmis: '9', protocol: null });
    for (const width of [80, 58] as const) {
      const file = pdfFile(await renderDanfce(offline, { width }));
      const text = oneLine(pdfText(file));
      expect(text).toContain('EMITIDA EM CONTINGÊNCIA');
      expect(text).toContain('Pendente de autorização');
      expect(text).not.toContain('Protocolo de autorização');
      expect(zbar(pdfPng(file, 1, 100), 'qrcode')).toEqual([offline.infNFeSupl?.qrCode]);
    }

    h.clock.advance(10 * 60_000);
    const later = await settle(h, sale.id, (d) => d.status === 'autorizada', '/v1/nfce');
    const authorized = parseOutputDocument(await xmlOf(h, later.id));
    expect(authorized.tpEmis).toBe('9');
    const text = oneLine(pdfText(pdfFile(await renderDanfce(authorized, { width: 80 }))));
    expect(text).toContain(`Protocolo de autorização: ${later.protocolo ?? '?'}`);
    expect(text).not.toContain('Pendente de autorização');
  });

  it('a cancelled NFC-e shows CANCELADA', async () => {
    const issued = await authorizedNfce(h, {
      itens: [agua],
      pagamentos: [{ metodo: 'dinheiro', valor: '7.00' }],
    });
    await cancelNote(h, issued.id);
    const state = (await h.request('GET', `/v1/nfce/${issued.id}`)).body as DocBody;
    expect(state.status).toBe('cancelada');
    const doc = parseOutputDocument(issued.xml, { cancelled: state.status === 'cancelada' });
    for (const width of [80, 58] as const) {
      const file = pdfFile(await renderDanfce(doc, { width }));
      expect(oneLine(pdfText(file))).toContain('NFC-e CANCELADA');
      expect(pdfRawText(file).startsWith('CANCELADA')).toBe(true);
      expect(zbar(pdfPng(file, 1, 100), 'qrcode')).toEqual([doc.infNFeSupl?.qrCode]);
    }
  });

  it('a real third-party NFC-e in contingency (sped-nfe sample, BA): QR and items', async () => {
    const sample = readFileSync(
      path.join(projectRoot, '..', 'shared', 'reference', 'samples', 'nfce', 'nfce_com_qrcode.xml'),
      'utf8',
    );
    const doc = parseOutputDocument(sample);
    expect(doc).toMatchObject({ modelo: '65', tpEmis: '9', protocol: null });
    const file = pdfFile(await renderDanfce(doc, { width: 80 }));
    const text = oneLine(pdfText(file));
    expect(text).toContain('EMITIDA EM CONTINGÊNCIA');
    for (const item of doc.items) expect(text).toContain(item.cProd);
    expect(zbar(pdfPng(file, 1, 100), 'qrcode')).toEqual([doc.infNFeSupl?.qrCode]);
  });

  it('refuses an NF-e', async () => {
    const xml = signedNote(55, {
      naturezaOperacao: 'Venda',
      customer_id: 'cus_pj',
      itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
      pagamentos: [{ forma: '01', valor: '18.90' }],
    });
    await expect(renderDanfce(parseOutputDocument(xml), { width: 80 })).rejects.toThrow(RangeError);
  });
});

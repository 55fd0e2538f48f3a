// DACE PDFs of DC-e (A4 and the 100 × 150 mm label) read back the way a person or a scanner would:
// pdftotext -raw for the text (each drawn line whole, the watermarks first), pdfinfo for pages and size,
// pdftoppm + zbarimg for the Code 128 key and the QR code of infDCeSupl. BALCAO_UPDATE_EXAMPLES=1 also
// rewrites docs/screenshots/dace-a4.png and dace-etiqueta.png.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { daceModelOf } from '../../src-main/outputs/dce-model.ts';
import { OutputParseError } from '../../src-main/outputs/model.ts';
import {
  DACE_CANCELLED_NOTICE,
  DACE_HOMOLOGACAO_NOTICE,
  DACE_LABEL_DECLARATION_REFERENCE,
  DACE_PREVIEW_NOTICE,
  renderDaceA4,
  renderDaceLabel,
} from '../../src-main/outputs/pdf/index.ts';
import { formatChave } from '../../src-main/outputs/pdf/format.ts';
import { projectRoot } from '../../src-main/paths.ts';
import { prepareDce } from '../../src-main/fiscal/dce/prepare.ts';
import { dceContext, dcePayload } from '../fixtures/dce-sample.ts';
import { testCertificate } from '../fixtures/fiscal.ts';
import {
  COMPANY_NAME,
  DCE_OBS1,
  DCE_OBS2,
  DH_RECBTO,
  NPROT,
  dceProcOf,
  dceProcXml,
  dceXml,
  fixture,
  keyOf,
  manyItems,
  protDCe,
  protDCeFor,
  qrOf,
  totalOf,
} from '../fixtures/outputs/dce.ts';
import { pdfFile, pdfInfo, pdfPng, pdfRawText, zbar } from '../fixtures/outputs/pdf-tools.ts';

const LABEL = { width: 283.465, height: 425.197 };

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** The words of a long text, for checking a wrapped paragraph whole: pdftotext breaks it into lines. */
function words(text: string): string {
  return oneLine(text).trim();
}

function expectAll(flat: string, expected: readonly string[]): void {
  for (const e of expected) expect(flat, e).toContain(e);
}

type Format = 'a4' | 'etiqueta';
const render = (format: Format): typeof renderDaceA4 => (format === 'a4' ? renderDaceA4 : renderDaceLabel);

describe('daceModelOf', () => {
  it('reads a dceProc through the DC-e reader: the authorization, the QR code, the texts only the DACE shows', () => {
    const f = fixture();
    const xml = dceProcXml(f).replace(
      '</infCpl>',
      '</infCpl><infAdMarketplace>Entrega agendada</infAdMarketplace><infAdECT>Registro BR123</infAdECT>',
    );
    const m = daceModelOf(xml);
    expect(m).toMatchObject({
      chave: keyOf(f),
      ide: { tpAmb: 2, tpEmit: 1, serie: 1, nDC: 4242, dhEmi: '2026-11-24T10:15:30-03:00' },
      vDC: '122.79',
      transp: { modTrans: 0, CNPJTransp: null },
      supl: { qrCodDCe: qrOf(f) },
      infAdic: { infCpl: 'Pedido 8812 - devolução de compra pelo consumidor' },
      infDec: { xObs1: DCE_OBS1, xObs2: DCE_OBS2 },
      infAdFisco: null,
      infAdMarketplace: 'Entrega agendada',
      infAdECT: 'Registro BR123',
      authorization: { nProt: NPROT, dhRecbto: DH_RECBTO, cStat: '100' },
    });
    expect(m.issuer).toMatchObject({
      group: 'Marketplace',
      CNPJ: '11222333000181',
      Site: 'www.lojabalcao.com.br',
    });
    expect(m.det).toHaveLength(3);
  });

  it('a draft (bare DCe) and a DCe beside a rejection have no authorization to print', () => {
    const f = fixture({ tpEmit: '2' });
    expect(daceModelOf(dceXml(f)).authorization).toBeNull();
    const rejected = `<dceProc xmlns="http://www.portalfiscal.inf.br/dce" versao="1.00">${dceXml(f)}${protDCe(
      f,
      '225',
      'Rejeição: Falha no Schema XML da DC-e',
    )}</dceProc>`;
    const m = daceModelOf(rejected);
    expect(m.prot?.cStat).toBe('225');
    expect(m.authorization).toBeNull();
  });

  it('refuses what is not a DC-e', () => {
    const xml = dceXml(fixture());
    expect(() => daceModelOf('<NFe/>')).toThrow(OutputParseError);
    expect(() => daceModelOf('not xml <')).toThrow(OutputParseError);
    expect(() => daceModelOf(xml.replace('<mod>99</mod>', '<mod>55</mod>'))).toThrow(/not 99/);
    expect(() => daceModelOf(xml.replace(/Id="DCe\d+"/, 'Id="DCe123"'))).toThrow(/44 digits/);
    expect(() => daceModelOf(xml.replace(/<infDec>.*<\/infDec>/, ''))).toThrow(OutputParseError);
    expect(() => daceModelOf(xml.replace(/<infDCeSupl>.*<\/infDCeSupl>/, ''))).toThrow(/infDCeSupl/);
  });
});

describe.each(['a4', 'etiqueta'] as const)('DACE %s', (format) => {
  it('an authorized DC-e in homologação: identification, protocol, parties, items, total, notices, barcodes', async () => {
    const f = fixture();
    const file = pdfFile(await render(format)(daceModelOf(dceProcXml(f))));
    const info = pdfInfo(file);
    expect(info.pages).toBe(1);
    if (format === 'a4') expect(info).toMatchObject({ width: 595.28, height: 841.89 });
    else expect(info).toMatchObject(LABEL);

    const flat = pdfRawText(file);
    expectAll(flat, [
      'Declaração Auxiliar de Conteúdo Eletrônica',
      'DACE',
      formatChave(keyOf(f)),
      '000.004.242',
      '001',
      '24/11/2026 10:15:30',
      `${NPROT} - 24/11/2026 10:15:42`,
      'MARKETPLACE',
      COMPANY_NAME,
      '11.222.333/0001-81',
      'Maria das Dores Vendedora',
      '123.456.789-09',
      'Rua das Acácias, 120 - Casa 2',
      'Campinas - SP',
      '13010-050',
      'João Pereira da Silva',
      '987.654.321-00',
      'Avenida Afonso Pena, 3000 - Apto 801',
      'Belo Horizonte - MG',
      '30130-009',
      'Livro usado - Dom Casmurro',
      '49019900',
      'Camiseta de algodão tamanho M',
      'Caneca de cerâmica',
      '35,90',
      '49,90',
      '36,99',
      '122,79',
      'CORREIOS',
      DACE_HOMOLOGACAO_NOTICE,
      'DECLARAÇÃO DO USUÁRIO EMITENTE',
    ]);
    // The declaration texts in full on both formats (they fit the label in small type); content-stream order,
    // where -layout would mix the letters of the watermark into the lines it crosses.
    expectAll(pdfRawText(file), [words(DCE_OBS1), words(DCE_OBS2)]);
    if (format === 'a4') {
      expectAll(flat, [
        '1/1',
        '2,0000',
        '24,95',
        'Edição de 1998, capa com marcas de uso',
        'www.lojabalcao.com.br',
      ]);
      expectAll(flat, [
        'Pedido 8812 - devolução de compra pelo consumidor',
        'Pedido (Marketplace): MKT-8812',
      ]);
    } else {
      expectAll(flat, ['DACE — Declaração Auxiliar de Conteúdo Eletrônica', 'CONTEÚDO DECLARADO (3 ITENS)']);
      expect(flat).not.toContain(DACE_LABEL_DECLARATION_REFERENCE);
      expect(flat).not.toContain('e mais');
    }
    expect(flat).not.toContain(DACE_CANCELLED_NOTICE);
    expect(flat).not.toContain('PRÉVIA');
    // The watermark is drawn first, under the content.
    expect(pdfRawText(file).startsWith('SEM VALOR FISCAL')).toBe(true);

    // The label at 203 dpi (8 dots/mm), the resolution of the common thermal shipping-label printers.
    const png = pdfPng(file, 1, format === 'a4' ? 200 : 203);
    expect(zbar(png, 'code128')).toEqual([keyOf(f)]);
    expect(zbar(png, 'qrcode')).toEqual([qrOf(f)]);
    if (process.env['BALCAO_UPDATE_EXAMPLES'] === '1') {
      pdfPng(
        file,
        1,
        format === 'a4' ? 100 : 150,
        path.join(projectRoot, 'docs', 'screenshots', `dace-${format}`),
      );
    }
  });

  it('in production, cancelled: CANCELADA, no homologação notice, barcodes still read', async () => {
    const f = fixture({ tpAmb: '1' });
    const file = pdfFile(await render(format)(daceModelOf(dceProcXml(f)), { cancelled: true }));
    const flat = pdfRawText(file);
    expect(flat).toContain(DACE_CANCELLED_NOTICE);
    expect(flat).not.toContain('SEM VALOR FISCAL');
    expect(flat).not.toContain('HOMOLOGAÇÃO');
    expect(pdfRawText(file).startsWith(DACE_CANCELLED_NOTICE)).toBe(true);
    const png = pdfPng(file, 1, 300);
    expect(zbar(png, 'code128')).toEqual([keyOf(f)]);
    expect(zbar(png, 'qrcode')).toEqual([qrOf(f)]);
  });

  it('in production and authorized: none of the notices', async () => {
    const f = fixture({ tpAmb: '1' });
    const flat = pdfRawText(pdfFile(await render(format)(daceModelOf(dceProcXml(f)))));
    expect(flat).toContain(`${NPROT} - 24/11/2026 10:15:42`);
    for (const notice of [DACE_CANCELLED_NOTICE, 'SEM VALOR', 'PRÉVIA', 'HOMOLOGAÇÃO']) {
      expect(flat).not.toContain(notice);
    }
  });

  it('a draft (no protocol) prints as a preview, and so does an authorized one asked as preview', async () => {
    const f = fixture({ tpAmb: '1', tpEmit: '2' });
    const draft = pdfRawText(pdfFile(await render(format)(daceModelOf(dceXml(f)))));
    expectAll(draft, [DACE_PREVIEW_NOTICE, 'SEM AUTORIZAÇÃO DE USO', 'EMISSOR PRÓPRIO', COMPANY_NAME]);
    expect(draft).not.toContain('PROTOCOLO DE AUTORIZAÇÃO');
    const asked = pdfRawText(pdfFile(await render(format)(daceModelOf(dceProcXml(f)), { preview: true })));
    expect(asked).toContain(DACE_PREVIEW_NOTICE);
  });

  it('a carrier issuing (Transportadora) with modTrans 2 and a recipient known by idOutros', async () => {
    const f = fixture({ tpEmit: '3', modTrans: '2', destId: { tag: 'idOutros', value: 'PASSAPORTE-X123' } });
    const flat = pdfRawText(pdfFile(await render(format)(daceModelOf(dceProcXml(f)))));
    expectAll(flat, ['TRANSPORTADORA (CNPJ 44.555.666/0001-99)', 'PASSAPORTE-X123', COMPANY_NAME]);
  });
});

describe('DACE of an 80-item DC-e', () => {
  const f = fixture({ items: manyItems(80) });
  const model = daceModelOf(dceProcXml(f));

  it('A4: the items continue on a second page that repeats the identification; total and declaration at the end', async () => {
    const file = pdfFile(await renderDaceA4(model));
    expect(pdfInfo(file).pages).toBe(2);
    const p1 = pdfRawText(file, 1);
    const p2 = pdfRawText(file, 2);
    const all = `${p1} ${p2}`;
    for (let k = 1; k <= 80; k++) expect(all).toContain(`Peça de reposição número ${k} `);
    expect(p1).toContain('1/2');
    expect(p2).toContain('2/2');
    expect(p2).toContain('CONTEÚDO DECLARADO (CONTINUAÇÃO)');
    expect(p2).toContain(formatChave(keyOf(f)));
    expect(p1).not.toContain('VALOR TOTAL DA DECLARAÇÃO');
    expect(p2).toContain('VALOR TOTAL DA DECLARAÇÃO');
    expect(totalOf(f.items)).toBe('301.20');
    expect(p2).toContain('301,20');
    expect(p2).toContain(words(DCE_OBS2));
    const png = pdfPng(file, 2, 200);
    expect(zbar(png, 'code128')).toEqual([keyOf(f)]);
    expect(zbar(png, 'qrcode')).toEqual([qrOf(f)]);
  });

  it('label: one page, the items that fit and "e mais N itens", the total of all 80', async () => {
    const file = pdfFile(await renderDaceLabel(model));
    expect(pdfInfo(file)).toMatchObject({ pages: 1, ...LABEL });
    const flat = pdfRawText(file);
    const shown = flat.match(/Peça de reposição número \d+/g) ?? [];
    expect(shown.length).toBeGreaterThanOrEqual(5);
    expect(shown).toEqual(shown.map((_, k) => `Peça de reposição número ${k + 1}`));
    expect(flat).toContain(`e mais ${80 - shown.length} itens`);
    expectAll(flat, ['CONTEÚDO DECLARADO (80 ITENS)', 'R$ 301,20', words(DCE_OBS1)]);
    const png = pdfPng(file, 1, 300);
    expect(zbar(png, 'code128')).toEqual([keyOf(f)]);
    expect(zbar(png, 'qrcode')).toEqual([qrOf(f)]);
  });
});

describe('DACE A4 with the longest free texts of infAdic (17,000 characters)', () => {
  /** `size` characters of numbered sentences tagged `tag`, so each can be found again on the pages. */
  function longText(tag: string, size: number): string {
    let out = '';
    for (let k = 1; out.length + 40 < size; k++)
      out += `Observação ${tag}${String(k).padStart(3, '0')} do pedido. `;
    return out.trim();
  }

  it('continues the additional information over pages, every sentence printed, the declaration last', async () => {
    const texts = {
      F: longText('F', 2000),
      C: longText('C', 5000),
      M: longText('M', 5000),
      E: longText('E', 5000),
    };
    const f = fixture({ infCpl: texts.C });
    const xml = dceProcXml(f)
      .replace('<infAdic>', `<infAdic><infAdFisco>${texts.F}</infAdFisco>`)
      .replace(
        '</infCpl>',
        `</infCpl><infAdMarketplace>${texts.M}</infAdMarketplace><infAdECT>${texts.E}</infAdECT>`,
      );
    const file = pdfFile(await renderDaceA4(daceModelOf(xml)));
    const pages = pdfInfo(file).pages;
    expect(pages).toBeGreaterThanOrEqual(2);
    // Content-stream order: the watermarks come first, whole, instead of scattered among these lines.
    const text = Array.from({ length: pages }, (_, k) => pdfRawText(file, k + 1));
    const all = text.join(' ');
    const missing: string[] = [];
    for (const [tag, body] of Object.entries(texts)) {
      const count = body.match(/Observação/g)?.length ?? 0;
      expect(count).toBeGreaterThan(30);
      for (let k = 1; k <= count; k++) {
        const sentence = `Observação ${tag}${String(k).padStart(3, '0')} do pedido.`;
        if (!all.includes(sentence)) missing.push(sentence);
      }
    }
    expect(missing).toEqual([]);
    expect(text[1]).toContain('INFORMAÇÕES ADICIONAIS (CONTINUAÇÃO)');
    expect(text[pages - 1]).toContain(words(DCE_OBS2));
    text.forEach((t, k) => expect(t).toContain(`${k + 1}/${pages}`));
    expect(text.slice(0, -1).join(' ')).not.toContain('DECLARAÇÃO DO USUÁRIO EMITENTE');
  });
});

describe('DACE of a DC-e signed by the builder (prepareDce)', () => {
  it.each(['a4', 'etiqueta'] as const)(
    '%s: the escaped names, the exact line values and both barcodes read back',
    async (format) => {
      const r = prepareDce(dcePayload(), dceContext(), testCertificate());
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const proc = dceProcOf(r.xml, protDCeFor(r.chave, '2'));
      const file = pdfFile(await render(format)(daceModelOf(proc)));
      const flat = pdfRawText(file);
      expectAll(flat, [
        formatChave(r.chave),
        '000.000.042',
        'Maria da Silva',
        '529.982.247-25',
        'Joao & Filhos <Casa>',
        'Copacabana',
        'Rio de Janeiro - RJ',
        'Livro usado',
        '20,20',
        // 1.5 × 0.33333333 = 0.499999995, half-up to cents.
        '0,50',
        '20,70',
        `${NPROT} - 24/11/2026 10:15:42`,
        DACE_HOMOLOGACAO_NOTICE,
      ]);
      const png = pdfPng(file, 1, 300);
      expect(zbar(png, 'code128')).toEqual([r.chave]);
      expect(zbar(png, 'qrcode')).toEqual([r.qrCode]);
    },
  );
});

describe('declaration texts longer than the label holds (the XSD admits 2,000 characters each)', () => {
  it('the label refers to the A4 instead of abbreviating them; the A4 prints them in full', async () => {
    const long = (tag: string): string =>
      Array.from(
        { length: 60 },
        (_, k) => `Declaração ${tag}${String(k + 1).padStart(2, '0')} do usuário.`,
      ).join(' ');
    const f = fixture();
    const xml = dceProcXml(f)
      .replace(/<xObs1>.*<\/xObs1>/, `<xObs1>${long('A')}</xObs1>`)
      .replace(/<xObs2>.*<\/xObs2>/, `<xObs2>${long('B')}</xObs2>`);
    const model = daceModelOf(xml);
    expect(model.infDec.xObs1.length).toBeGreaterThan(1500);

    const label = pdfRawText(pdfFile(await renderDaceLabel(model)));
    expect(label).toContain(words(DACE_LABEL_DECLARATION_REFERENCE));
    expect(label).not.toContain('Declaração A01');

    const a4 = pdfFile(await renderDaceA4(model));
    const raw = Array.from({ length: pdfInfo(a4).pages }, (_, k) => pdfRawText(a4, k + 1)).join(' ');
    for (const tag of ['A', 'B']) {
      for (let k = 1; k <= 60; k++)
        expect(raw).toContain(`Declaração ${tag}${String(k).padStart(2, '0')} do usuário.`);
    }
    expect(raw).not.toContain(DACE_LABEL_DECLARATION_REFERENCE);
  });
});

describe('a recipient with every address field at its 60-character maximum', () => {
  const long = {
    xNome: 'Maria Aparecida Albuquerque de Vasconcelos Cavalcanti Ferreira',
    xLgr: 'Rua Desembargador Joaquim Francisco de Assis Brasil Sobrinho',
    nro: 'Quilômetro 27 da Rodovia Estadual com Acesso pela Marginal',
    xCpl: 'Bloco Residencial das Palmeiras Imperiais Apartamento 1204',
    xBairro: 'Jardim Residencial Parque das Nações Unidas do Alto Paraíso',
    xMun: 'São José dos Campos do Vale do Paraíba Paulista Setentrional',
  };

  function withLongRecipient(xml: string): string {
    const edits: Array<[string, string]> = [
      ['<xNome>João Pereira da Silva</xNome>', `<xNome>${long.xNome}</xNome>`],
      ['<xLgr>Avenida Afonso Pena</xLgr>', `<xLgr>${long.xLgr}</xLgr>`],
      ['<nro>3000</nro>', `<nro>${long.nro}</nro>`],
      ['<xCpl>Apto 801</xCpl>', `<xCpl>${long.xCpl}</xCpl>`],
      ['<xBairro>Funcionários</xBairro>', `<xBairro>${long.xBairro}</xBairro>`],
      ['<xMun>Belo Horizonte</xMun>', `<xMun>${long.xMun}</xMun>`],
    ];
    let out = xml;
    for (const [from, to] of edits) {
      expect(out).toContain(from);
      out = out.replace(from, to);
    }
    return out;
  }

  it.each(['a4', 'etiqueta'] as const)(
    '%s prints each of them whole (fitted or wrapped, never cut)',
    async (format) => {
      for (const v of Object.values(long)) expect(v.length).toBeGreaterThanOrEqual(58);
      const model = daceModelOf(withLongRecipient(dceProcXml(fixture())));
      const raw = pdfRawText(pdfFile(await render(format)(model)));
      for (const v of Object.values(long)) expect(raw).toContain(v);
      expect(raw).not.toContain('…');
    },
  );
});

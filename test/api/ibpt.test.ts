// The IBPT table (Lei 12.741/2012): import per company (Latin-1 or UTF-8 CSV, every faulty line reported at
// once), the approximate taxes of each item from it, and the "Trib aprox" line in infCpl as the DANFE, the
// DANFCe and the ESC/POS receipt print it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';
import { pdfFile, pdfText } from '../fixtures/outputs/pdf-tools.ts';
import { SHIPPED_CODES } from '../fixtures/ncm.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const HEADER =
  'codigo;ex;tipo;descricao;nacionalfederal;importadosfederal;estadual;municipal;vigenciainicio;vigenciafim;chave;versao;fonte';
const line = (
  codigo: string,
  descricao: string,
  nac: string,
  imp: string,
  est: string,
  mun = '0.00',
  fim = '31/12/2099',
) =>
  `${codigo};;0;${descricao};${nac};${imp};${est};${mun};01/11/2026;${fim};7C2B9A;26.2.A;IBPT/empresometro.com.br`;
const GOOD = [
  HEADER,
  line('22011000', 'Águas minerais e águas gaseificadas', '7.85', '13.20', '18.00'),
  line('09012100', 'Café torrado, não descafeinado', '13.45', '17.20', '18.00'),
  '0107;;2;Licenciamento de programas de computação;13.45;0.00;0.00;2.00;01/11/2026;31/12/2099;7C2B9A;26.2.A;IBPT/empresometro.com.br',
].join('\r\n');

const post = (body: Buffer, companyId = h.companyId) =>
  h.request('POST', `/v1/reference/ibpt?companyId=${companyId}`, {
    body,
    headers: { 'Content-Type': 'text/csv' },
  });

type ErrorBody = { error: string; details: { field: string; error: string }[] };

async function fetchBytes(url: string): Promise<Buffer> {
  const res = await fetch(`${h.service.url}${url}`, { headers: { 'X-API-Key': h.apiKey } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('IBPT table import', () => {
  it('404 before any import', async () => {
    expect((await h.request('GET', `/v1/reference/ibpt?companyId=${h.companyId}`)).status).toBe(404);
  });

  it('reports every faulty line at once, by its line number, and stores nothing', async () => {
    const bad = [
      HEADER,
      line('22011000', 'Água', '7.85', '13.20', '18.00'),
      line('2201100', 'curto', '7.85', '13.20', '18.00'),
      line('09012100', 'Café', '13,45', 'x', '18.00', '0.00', '31/02/2099'),
      '09012100;;0;sem colunas',
      line('22011000', 'Água de novo', '7.85', '13.20', '18.00'),
    ].join('\n');
    const res = await post(Buffer.from(bad, 'latin1'));
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).details).toEqual([
      { field: 'linhas[3].codigo', error: 'an NCM (tipo 0) has 8 digits' },
      {
        field: 'linhas[4].importadosfederal',
        error: 'must be a percentage such as 13.45 (0 to 100, up to 4 decimals)',
      },
      { field: 'linhas[4].vigenciafim', error: 'must be a date dd/mm/aaaa' },
      { field: 'linhas[5].codigo', error: "expected 13 columns separated by ';', found 4" },
      { field: 'linhas[6].codigo', error: '22011000 is listed twice' },
    ]);
    const header = await post(Buffer.from('codigo,ex,tipo\n1,2,3'));
    expect((header.body as ErrorBody).details[0]?.field).toBe('linhas[1]');
    expect((await h.request('GET', `/v1/reference/ibpt?companyId=${h.companyId}`)).status).toBe(404);
  });

  it('imports a Latin-1 file (accents intact), for the company’s UF; a small table leaves the NCM table alone', async () => {
    const res = await post(Buffer.from(GOOD, 'latin1'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      uf: 'SP',
      versao: '26.2.A',
      chave: '7C2B9A',
      fonte: 'IBPT/empresometro.com.br',
      vigenciaInicio: '2026-11-01',
      vigenciaFim: '2099-12-31',
      quantidade: 3,
      vencida: false,
      ncm: { adotada: false, versao: null, quantidade: 2 },
    });
    const rows = await h.service.db
      .selectFrom('ibpt_rates')
      .select('descricao')
      .where('codigo', '=', '09012100')
      .execute();
    expect(rows).toEqual([{ descricao: 'Café torrado, não descafeinado' }]);
    expect((await h.request('GET', '/v1/reference/ncm')).body).toMatchObject({ origem: 'embarcada' });
  });

  it('a sale takes vTotTrib from the table; infCpl, the DANFCe and the receipt show the Trib aprox line', async () => {
    const sale = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      json: {
        itens: [
          {
            codigo: 'A1',
            descricao: 'Agua mineral 500 ml',
            ncm: '22011000',
            quantidade: 3,
            valor_unitario: '3.50',
            cfop: '5102',
            tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
          },
        ],
        pagamentos: [{ metodo: 'dinheiro', valor: '20.00' }],
      },
    });
    expect(sale.status).toBe(201);
    const id = (sale.body as { id: string }).id;
    const xml = (await h.request('GET', `/v1/nfce/${id}/xml`)).text;
    // 10.50 × (7.85 + 18.00 + 0.00) % = 2.71425 → 2.71: federal 0.82 (0.8232), estadual 1.89 (1.8868).
    expect(xml).toContain('<vTotTrib>2.71</vTotTrib>');
    const expected = 'Trib aprox R$ 0,82 Federal, R$ 1,89 Estadual e R$ 0,00 Municipal Fonte: IBPT 7C2B9A';
    expect(xml).toContain(`<infCpl>${expected}</infCpl>`);
    const danfce = flat(pdfText(pdfFile(await fetchBytes(`/v1/nfce/${id}/danfe`))));
    expect(danfce).toContain(expected);
    const receipt = (await h.request('GET', `/v1/nfce/${id}/escpos?format=json`)).body as {
      texto: string;
      base64: string;
    };
    expect(flat(receipt.texto)).toContain(expected);
    // The printer gets those very words (ASCII, so the same bytes in every code page).
    expect(flat(Buffer.from(receipt.base64, 'base64').toString('latin1'))).toContain(
      'Trib aprox R$ 0,82 Federal',
    );
  });

  it('an NF-e of the Simples demo company: DANFE Dados adicionais carry the Simples notices and the line', async () => {
    const sale = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: {
        naturezaOperacao: 'Venda de mercadoria',
        informacoesAdicionais: 'Pedido 77',
        customer: SP_CONTRIBUTOR,
        itens: [
          {
            codigo: 'C1',
            descricao: 'Cafe torrado 500 g',
            ncm: '09012100',
            quantidade: 2,
            valor_unitario: '25.00',
            cfop: '5102',
            tributacao: {
              ICMS: { orig: 0, CSOSN: '101', pCredSN: '2.56' },
              PIS: { CST: '49' },
              COFINS: { CST: '49' },
            },
          },
        ],
        pagamentos: [{ forma: '15', valor: '50.00' }],
      },
    });
    expect(sale.status).toBe(201);
    const doc = sale.body as { id: string };
    const sent = await h.request('POST', `/v1/nfe/${doc.id}/send`);
    expect(sent.status).toBeLessThan(300);
    for (let i = 0; i < 50; i++) {
      await h.service.worker.tick();
      const now = (await h.request('GET', `/v1/nfe/${doc.id}`)).body as { status: string };
      if (now.status === 'autorizada') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const xml = (await h.request('GET', `/v1/nfe/${doc.id}/xml`)).text;
    // 50.00 × 31.45 % = 15.725 → 15.73: federal 6.73 (6.7273), estadual 9.00 (9.0027).
    const infCpl =
      'Pedido 77 | DOCUMENTO EMITIDO POR ME OU EPP OPTANTE PELO SIMPLES NACIONAL | NAO GERA DIREITO A CREDITO FISCAL DE IPI | ' +
      'PERMITE O APROVEITAMENTO DO CREDITO DE ICMS NO VALOR DE R$ 1,28; CORRESPONDENTE A ALIQUOTA DE 2,56%, NOS TERMOS DO ART. 23 DA LC 123/2006 | ' +
      'Trib aprox R$ 6,73 Federal, R$ 9,00 Estadual e R$ 0,00 Municipal Fonte: IBPT 7C2B9A';
    expect(xml).toContain(`<infCpl>${infCpl}</infCpl>`);
    const danfe = flat(pdfText(pdfFile(await fetchBytes(`/v1/nfe/${doc.id}/danfe`))));
    for (const part of [
      'DOCUMENTO EMITIDO POR ME OU EPP OPTANTE PELO SIMPLES NACIONAL',
      'NAO GERA DIREITO A CREDITO FISCAL DE IPI',
      'PERMITE O APROVEITAMENTO DO CREDITO DE ICMS NO VALOR DE R$ 1,28',
      'Trib aprox R$ 6,73 Federal, R$ 9,00 Estadual e R$ 0,00 Municipal Fonte: IBPT 7C2B9A',
    ]) {
      expect(danfe).toContain(part);
    }
    // The line already gives the approximate taxes: the generic sentence is not printed twice.
    expect(danfe).not.toContain('Valor aproximado dos tributos');
  });

  it('a UTF-8 file of a whole table replaces the previous one, flags an expired table and becomes the NCM table', async () => {
    const codes = [...SHIPPED_CODES, '02109911'];
    const csv = [
      `\uFEFF${HEADER}`,
      ...codes.map((c) => line(c, 'Mercadoria açúcar', '10.00', '12.00', '17.00', '0.00', '31/01/2026')),
    ].join('\n');
    const res = await post(Buffer.from(csv, 'utf8'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      quantidade: codes.length,
      vencida: true,
      ncm: { adotada: true, versao: 'IBPT 26.2.A (2026-11-01)', quantidade: codes.length, motivo: null },
    });
    const ncm = await h.request('GET', '/v1/reference/ncm');
    expect(ncm.body).toEqual({
      versao: 'IBPT 26.2.A (2026-11-01)',
      origem: 'importada',
      quantidade: codes.length,
    });
    const table = await h.request('GET', `/v1/reference/ibpt?companyId=${h.companyId}`);
    expect(table.body).toMatchObject({ vencida: true, quantidade: codes.length });
    expect(await h.service.db.selectFrom('ibpt_tables').select('id').execute()).toHaveLength(1);
    const rows = await h.service.db
      .selectFrom('ibpt_rates')
      .select('descricao')
      .where('codigo', '=', '02109911')
      .execute();
    expect(rows).toEqual([{ descricao: 'Mercadoria açúcar' }]);
  });
});

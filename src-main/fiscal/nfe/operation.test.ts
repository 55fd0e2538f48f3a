// The operation rules caught before signing (operation.ts): each payload that breaks one is refused with the
// cStat SEFAZ would answer and the caller's own field, and the notes that keep the rules still build.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emitter, prepareContext } from '../../../test/fixtures/fiscal.ts';
import { validateXml } from '../schema.ts';
import type { EmitModel, NfeModel } from './model.ts';
import { prepareNfe, type PrepareContext } from './prepare.ts';

const cafe = { productId: 'prd_cafe', quantidade: 2 }; // 2 × 18.90 = 37.80

/** The recipient of the NF-e fixtures (customers.cus_pj) is in RJ; the emitter in SP. */
function nfe(payload: Record<string, unknown>, ctx: Partial<PrepareContext> = {}) {
  return prepareNfe(
    { naturezaOperacao: 'Venda de mercadoria', customerId: 'cus_pj', ...payload },
    prepareContext(55, ctx),
  );
}

function nfce(payload: Record<string, unknown>, ctx: Partial<PrepareContext> = {}) {
  return prepareNfe(payload, prepareContext(65, ctx));
}

function refused(result: ReturnType<typeof prepareNfe>) {
  if (result.ok) throw new Error('expected a refusal');
  return { cStat: result.rejection?.cStat, xMotivo: result.rejection?.xMotivo, errors: result.errors };
}

function built(result: ReturnType<typeof prepareNfe>) {
  if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
  return result.document;
}

/** An emitter in Curitiba (PR requires infRespTec, and the CSRT on NF-e since 2026-01-19). */
function paranaEmitter(): EmitModel {
  const e = emitter();
  return {
    ...e,
    IE: '1234567850',
    enderEmit: { ...e.enderEmit, xMun: 'Curitiba', cMun: '4106902', UF: 'PR', CEP: '80010000' },
  };
}

const RESP_TEC: NonNullable<NfeModel['infRespTec']> = {
  CNPJ: '11222333000181',
  xContato: 'Suporte Balcao',
  email: 'suporte@example.com',
  fone: '4130000000',
  csrt: null,
};
const CSRT = 'G8063VRTNDMO886SFNK5LDUDEI24XJ22YIPO';

describe('CFOP against the operation', () => {
  it('733: an intrastate CFOP (5102) to a recipient in another state, named on itens[0].cfop', () => {
    const r = refused(
      nfe({ itens: [{ ...cafe, cfop: '5102' }], pagamentos: [{ forma: '01', valor: '37.80' }] }),
    );
    expect(r.cStat).toBe('733');
    expect(r.xMotivo).toBe('Rejeicao: CFOP de operacao interna e idDest <> 1');
    expect(r.errors).toEqual([
      {
        field: 'itens[0].cfop',
        error: expect.stringMatching(
          /CFOP 5102 is within the state.*idDest 2\): use 6102 \(SEFAZ rejects it with cStat 733\)/,
        ),
      },
    ]);
  });

  it('732: an interstate CFOP (6102) to a recipient in the same state, spelling B names it its way', () => {
    const r = refused(
      nfce({ itens: [{ ...cafe, CFOP: '6102' }], pagamentos: [{ forma: '01', valor: '37.80' }] }),
    );
    // An NFC-e takes only its own list: the interstate CFOP there is 725.
    expect(r.cStat).toBe('725');
    expect(r.errors[0]?.field).toBe('itens[0].CFOP');
    const b = refused(
      prepareNfe(
        {
          natureza_operacao: 'Venda',
          destinatario: {
            cpf_cnpj: '11222333000181',
            razao_social: 'Mercado Paulista Ltda',
            ie: '111222330446',
            endereco: { logradouro: 'Rua A', numero: '1', bairro: 'Centro', municipio: 'Campinas', uf: 'SP' },
          },
          itens: [{ product_id: 'prd_cafe', quantidade: 2, cfop: '6102' }],
          pagamento: { metodo: 'dinheiro', valor: '37.80' },
        },
        prepareContext(55),
      ),
    );
    expect(b.cStat).toBe('732');
    expect(b.xMotivo).toBe('Rejeicao: CFOP de operacao interestadual e idDest <> 2');
    expect(b.errors).toEqual([
      {
        field: 'itens[0].cfop',
        error: expect.stringContaining('use 5102 (SEFAZ rejects it with cStat 732)'),
      },
    ]);
  });

  it('731: a foreign-trade CFOP (7102) on a domestic note', () => {
    const r = refused(
      nfe({ itens: [{ ...cafe, cfop: '7102' }], pagamentos: [{ forma: '01', valor: '37.80' }] }),
    );
    expect(r.cStat).toBe('731');
    expect(r.xMotivo).toBe('Rejeicao: CFOP de operacao com Exterior e idDest <> 3');
  });

  it('518 and 519: CFOP of entrada on a saída and of saída on an entrada', () => {
    const saida = refused(
      nfe({ itens: [{ ...cafe, cfop: '2102' }], pagamentos: [{ forma: '01', valor: '37.80' }] }),
    );
    expect(saida.cStat).toBe('518');
    expect(saida.xMotivo).toBe('Rejeicao: CFOP de entrada para NF-e de saida');
    const entrada = refused(
      nfe({
        tipoOperacao: '0',
        itens: [{ ...cafe, cfop: '6102' }],
        pagamentos: [{ forma: '01', valor: '37.80' }],
      }),
    );
    expect(entrada.cStat).toBe('519');
    expect(entrada.xMotivo).toBe('Rejeicao: CFOP de saida para NF-e de entrada');
  });

  it('725: an NFC-e with a CFOP outside the MOC list (5949), every faulty item reported at once', () => {
    const r = refused(
      nfce({
        itens: [{ ...cafe, cfop: '5949' }, cafe, { ...cafe, cfop: '6108' }],
        pagamentos: [{ forma: '01', valor: '113.40' }],
      }),
    );
    expect(r.cStat).toBe('725');
    expect(r.xMotivo).toBe('Rejeicao: NFC-e com CFOP invalido');
    expect(r.errors.map((e) => e.field)).toEqual(['itens[0].cfop', 'itens[2].cfop']);
  });

  it('a profile CFOP is moved to the operation and passes; the allowed NFC-e CFOPs pass', () => {
    expect(built(nfe({ itens: [cafe], pagamentos: [{ forma: '01', valor: '37.80' }] })).xml).toContain(
      '<CFOP>6102</CFOP>',
    );
    expect(
      built(nfce({ itens: [{ ...cafe, cfop: '5405' }], pagamentos: [{ forma: '01', valor: '37.80' }] })).xml,
    ).toContain('<CFOP>5405</CFOP>');
  });
});

describe('change only from cash, freight on an NFC-e', () => {
  it('869: change on a card payment (card over the total, no cash) is refused on the card payment', () => {
    const r = refused(nfce({ itens: [cafe], pagamentos: [{ forma: '03', valor: '40.00' }] }));
    expect(r.cStat).toBe('869');
    expect(r.xMotivo).toBe('Rejeicao: Valor do troco incorreto');
    expect(r.errors).toEqual([
      {
        field: 'pagamentos[0].valor',
        error: expect.stringContaining(
          'exceed the total 37.80 by 2.20, but only cash (forma 01) gives change',
        ),
      },
    ]);
    const pix = refused(
      prepareNfe(
        { natureza_operacao: 'Venda', itens: [cafe], pagamento: { metodo: 'pix', valor: '50.00' } },
        prepareContext(65),
      ),
    );
    expect(pix.cStat).toBe('869');
    expect(pix.errors[0]?.field).toBe('pagamento.valor');
  });

  it('change given from the cash part of a split payment is written as vTroco', () => {
    const doc = built(
      nfce({
        itens: [cafe],
        pagamentos: [
          { forma: '03', valor: '20.00' },
          { forma: '01', valor: '20.00' },
        ],
      }),
    );
    expect(doc.xml).toContain('<vTroco>2.20</vTroco>');
    const tooMuch = refused(
      nfce({
        itens: [cafe],
        pagamentos: [
          { forma: '01', valor: '1.00' },
          { forma: '04', valor: '40.00' },
        ],
      }),
    );
    expect(tooMuch.cStat).toBe('869');
    expect(tooMuch.errors[0]?.field).toBe('pagamentos[1].valor');
  });

  it('753: an NFC-e with freight outside a delivery, or freight with modFrete 9', () => {
    const modalidade = refused(
      nfce({ itens: [cafe], transporte: { modFrete: 0 }, pagamentos: [{ forma: '01', valor: '37.80' }] }),
    );
    expect(modalidade.cStat).toBe('753');
    expect(modalidade.xMotivo).toBe('Rejeicao: NFC-e com Frete');
    expect(modalidade.errors).toEqual([
      { field: 'transporte.modFrete', error: expect.stringContaining('cStat 753') },
    ]);
    const semFrete = refused(
      nfce({ indPres: 4, itens: [cafe], valorFrete: '5.00', pagamentos: [{ forma: '01', valor: '42.80' }] }),
    );
    expect(semFrete.cStat).toBe('753');
    expect(semFrete.errors).toEqual([{ field: 'valorFrete', error: expect.stringContaining('modFrete 9') }]);
    const presencial = refused(
      nfce({ itens: [{ ...cafe, valorFrete: '1.00' }], pagamentos: [{ forma: '01', valor: '38.80' }] }),
    );
    expect(presencial.errors).toEqual([
      { field: 'itens[0].valorFrete', error: expect.stringContaining('only on a delivery (indPres 4)') },
    ]);
  });

  it('a delivery (indPres 4) with a freight modality carries its freight', () => {
    const doc = built(
      nfce({
        indPres: 4,
        transporte: { modFrete: 0 },
        valorFrete: '5.00',
        itens: [cafe],
        pagamentos: [{ forma: '01', valor: '42.80' }],
      }),
    );
    expect(doc.xml).toContain('<modFrete>0</modFrete>');
    expect(doc.xml).toContain('<vFrete>5.00</vFrete>');
  });
});

describe('infRespTec where the UF requires it', () => {
  const pay = { itens: [cafe], pagamentos: [{ forma: '01', valor: '37.80' }] };

  it('972: a company in PR without a technical responsible is refused, naming the config field', () => {
    const r = refused(nfce(pay, { emit: paranaEmitter() }));
    expect(r.cStat).toBe('972');
    expect(r.xMotivo).toBe('Rejeicao: Obrigatoria as informacoes do responsavel tecnico');
    expect(r.errors).toEqual([
      {
        field: 'responsavel_tecnico',
        error: expect.stringContaining('notes of PR must carry the technical responsible'),
      },
    ]);
    // SP (the fixtures' UF) does not require it.
    expect(built(nfce(pay)).xml).not.toContain('<infRespTec>');
  });

  it('975: PR also requires the CSRT on NF-e (ZD07-10, since 2026-01-19); the NFC-e goes without', () => {
    const r = refused(
      nfe(
        { itens: [cafe], pagamentos: [{ forma: '01', valor: '37.80' }] },
        { emit: paranaEmitter(), infRespTec: RESP_TEC },
      ),
    );
    expect(r.cStat).toBe('975');
    expect(r.errors[0]?.field).toBe('responsavel_tecnico.csrt');
    const doc = built(nfce(pay, { emit: paranaEmitter(), infRespTec: RESP_TEC }));
    expect(doc.xml).toContain(
      '<infRespTec><CNPJ>11222333000181</CNPJ><xContato>Suporte Balcao</xContato><email>suporte@example.com</email><fone>4130000000</fone></infRespTec>',
    );
  });

  it('the CSRT is written as idCSRT + hashCSRT = base64(SHA-1(CSRT + chave)); the note validates', () => {
    const doc = built(
      nfe(
        { itens: [cafe], pagamentos: [{ forma: '01', valor: '37.80' }] },
        { emit: paranaEmitter(), infRespTec: { ...RESP_TEC, csrt: { idCSRT: '01', CSRT } } },
      ),
    );
    const hash = createHash('sha1')
      .update(CSRT + doc.chave)
      .digest('base64');
    expect(hash).toHaveLength(28);
    expect(doc.xml).toContain(
      `<fone>4130000000</fone><idCSRT>01</idCSRT><hashCSRT>${hash}</hashCSRT></infRespTec>`,
    );
    expect(doc.xml).not.toContain(CSRT);
    expect(validateXml(doc.xml, 'nfe').valid).toBe(true);
  });

  it('a company of another UF that configured one writes it too', () => {
    expect(built(nfce(pay, { infRespTec: RESP_TEC })).xml).toContain(
      '<infRespTec><CNPJ>11222333000181</CNPJ>',
    );
  });
});

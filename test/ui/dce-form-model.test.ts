// The DC-e form's logic without a browser: the body it sends is one the contract accepts (each issuer type,
// a foreign recipient, a carrier), the total it shows as typed is the vDC the service writes in the XML, and a
// signed DC-e read back (as the detail page and the edit form read it) gives the same DC-e again.
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { parseDcePayload } from '../../src-shared/contracts/dce-payload.ts';
import { SCALE, formatScaled } from '../../src-shared/money.ts';
import { prepareDce } from '../../src-main/fiscal/dce/prepare.ts';
import {
  EMPTY_DCE_PARTY,
  dcePartyOfCustomer,
  dcePayloadOf,
  formOfDce,
  itemCents,
  newDceForm,
  totalCents,
  withTipoEmitente,
  type DceForm,
  type DcePartyForm,
} from '../../src-renderer/src/backoffice/dce-form-model.ts';
import { readDceContent } from '../../src-renderer/src/backoffice/dce-xml.ts';
import { DCE_ENDERECO_PR, DCE_ENDERECO_RJ, dceContext, dcePayload } from '../fixtures/dce-sample.ts';
import { EMIT_CNPJ, testCertificate } from '../fixtures/fiscal.ts';

const parser = new DOMParser();
const cert = testCertificate();

// The parties as typed: documents and the seller's CEP with their punctuation, the buyer without a phone.
const seller: DcePartyForm = {
  ...EMPTY_DCE_PARTY,
  ...DCE_ENDERECO_PR,
  nome: 'Maria da Silva',
  cpfCnpj: '529.982.247-25',
  xMun: 'Curitiba',
  cep: '80020-310',
};
const buyer: DcePartyForm = {
  ...EMPTY_DCE_PARTY,
  ...DCE_ENDERECO_RJ,
  nome: 'Joao Pereira',
  cpfCnpj: '111.444.777-35',
  fone: '',
};

const filled = (changes: Partial<DceForm> = {}): DceForm => ({
  ...newDceForm('marketplace'),
  site: 'https://loja.example.com.br',
  emitente: seller,
  destinatario: buyer,
  itens: [
    {
      key: 1,
      descricao: 'Livro usado',
      ncm: '49019900',
      quantidade: '2',
      valorUnitario: '10,10',
      informacoesAdicionais: '',
    },
    {
      key: 2,
      descricao: 'Camiseta de algodão',
      ncm: '',
      quantidade: '1,5',
      valorUnitario: '0,33333333',
      informacoesAdicionais: 'tam M',
    },
  ],
  ...changes,
});

function prepared(payload: unknown) {
  const r = prepareDce(payload, dceContext(), cert);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

describe('DC-e form model', () => {
  it('builds a body the contract accepts, with decimals as exact text and the optional fields left out', () => {
    const body = dcePayloadOf(filled());
    expect(body).toEqual({
      tipoEmitente: 'marketplace',
      emitente: {
        cpfCnpj: '529.982.247-25',
        nome: 'Maria da Silva',
        endereco: {
          xLgr: 'Rua XV de Novembro',
          nro: '700',
          xBairro: 'Centro',
          cMun: '4106902',
          xMun: 'Curitiba',
          uf: 'PR',
          cep: '80020-310',
        },
      },
      site: 'https://loja.example.com.br',
      destinatario: {
        cpfCnpj: '111.444.777-35',
        nome: 'Joao Pereira',
        endereco: {
          xLgr: 'Avenida Atlantica',
          nro: '1702',
          xCpl: 'apto 501',
          xBairro: 'Copacabana',
          cMun: '3304557',
          uf: 'RJ',
          cep: '22021001',
          email: 'cliente@example.com',
        },
      },
      itens: [
        { descricao: 'Livro usado', quantidade: '2', valorUnitario: '10.10', ncm: '49019900' },
        {
          descricao: 'Camiseta de algodão',
          quantidade: '1.5',
          valorUnitario: '0.33333333',
          informacoesAdicionais: 'tam M',
        },
      ],
      transporte: { modalidade: 'correios' },
    });
    expect(parseDcePayload(body).ok).toBe(true);
  });

  it('leaves the declarant out for an own-system DC-e, names a foreign recipient by idOutros and a carrier by its CNPJ', () => {
    const body = dcePayloadOf(
      filled({
        tipoEmitente: 'proprio',
        serie: '7',
        destinatario: { ...buyer, outroDoc: true, cpfCnpj: 'RNE-V123456-X' },
        modalidade: 'transportadora',
        cnpjTransportadora: '11.222.333/0001-81',
        informacoesComplementares: '  Frágil  ',
      }),
    );
    expect(body.emitente).toBeUndefined();
    // The marketplace site belongs to the Marketplace group only.
    expect(body.site).toBeUndefined();
    expect(body.serie).toBe(7);
    expect(body.destinatario.idOutros).toBe('RNE-V123456-X');
    expect(body.destinatario.cpfCnpj).toBeUndefined();
    expect(body.transporte).toEqual({
      modalidade: 'transportadora',
      cnpjTransportadora: '11.222.333/0001-81',
    });
    expect(body.informacoesComplementares).toBe('Frágil');
    expect(parseDcePayload(body).ok).toBe(true);
    // A carrier's CNPJ typed before the modality changed back is not sent with the Correios.
    expect(dcePayloadOf(filled({ cnpjTransportadora: '11222333000181' })).transporte).toEqual({
      modalidade: 'correios',
    });
  });

  it('sends what is not a number as typed, so the service names each faulty field', () => {
    const body = dcePayloadOf(
      filled({
        serie: 'x',
        itens: [
          {
            key: 1,
            descricao: '',
            ncm: '123',
            quantidade: '1,23456',
            valorUnitario: 'abc',
            informacoesAdicionais: '',
          },
        ],
      }),
    );
    const parsed = parseDcePayload(body);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => e.field).sort()).toEqual([
      'itens[0].descricao',
      'itens[0].ncm',
      'itens[0].quantidade',
      'itens[0].valorUnitario',
      'serie',
    ]);
  });

  it('shows as the total the vDC the service writes: each line qCom × vUnCom rounded half-up to the cent, then summed', () => {
    const form = filled({
      itens: [
        {
          key: 1,
          descricao: 'A',
          ncm: '',
          quantidade: '3',
          valorUnitario: '0,33333333',
          informacoesAdicionais: '',
        },
        {
          key: 2,
          descricao: 'B',
          ncm: '',
          quantidade: '1,5',
          valorUnitario: '0,33333333',
          informacoesAdicionais: '',
        },
        {
          key: 3,
          descricao: 'C',
          ncm: '',
          quantidade: '0,0001',
          valorUnitario: '1.234,56',
          informacoesAdicionais: '',
        },
        { key: 4, descricao: 'D', ncm: '', quantidade: '7', valorUnitario: '0,1', informacoesAdicionais: '' },
      ],
    });
    // 0.99999999 → 1.00, 0.499999995 → 0.50, 0.123456 → 0.12, 0.70: binary floats would give 2.3199999….
    expect(form.itens.map((i) => itemCents(i))).toEqual([100n, 50n, 12n, 70n]);
    expect(totalCents(form.itens)).toBe(232n);
    const xml = prepared(dcePayloadOf(form));
    expect(xml.total).toBe(formatScaled(totalCents(form.itens), SCALE.money));
    expect(readDceContent(xml.xml, parser).itens.map((i) => i.valorTotal)).toEqual([
      '1.00',
      '0.50',
      '0.12',
      '0.70',
    ]);
    // A row not yet a number adds nothing and shows no line total.
    expect(itemCents({ quantidade: '2', valorUnitario: '' })).toBeNull();
    expect(
      totalCents([
        { quantidade: '2', valorUnitario: '' },
        { quantidade: '1', valorUnitario: '5' },
      ]),
    ).toBe(500n);
  });

  it('reads a signed DC-e back into the form, which sends the same DC-e again', () => {
    const original = prepared(
      dcePayloadOf(
        filled({
          modalidade: 'transportadora',
          cnpjTransportadora: '11222333000181',
          informacoesComplementares: 'Pedido 1234',
          observacoes: [
            { key: 1, campo: 'pedido', texto: '1234' },
            // A blank row is not sent.
            { key: 2, campo: ' ', texto: '' },
            { key: 3, campo: 'embalagem', texto: 'caixa de papelão' },
          ],
        }),
      ),
    );
    const content = readDceContent(original.xml, parser);
    // The marketplace's observations, kept on edit (PUT replaces the whole content).
    expect(content.observacoes).toEqual([
      { campo: 'pedido', texto: '1234' },
      { campo: 'embalagem', texto: 'caixa de papelão' },
    ]);
    expect(content.informacoesComplementares).toBe('Pedido 1234');
    expect(content).toMatchObject({
      serie: 1,
      numero: 42,
      tpEmit: '1',
      tpAmb: '2',
      issuer: { site: 'https://loja.example.com.br' },
      emitente: { cpf: '52998224725', nome: 'Maria da Silva' },
      destinatario: {
        cpf: '11144477735',
        endereco: {
          xCpl: 'apto 501',
          xMun: 'Rio de Janeiro',
          uf: 'RJ',
          cep: '22021001',
          email: 'cliente@example.com',
        },
      },
      modTrans: '2',
      cnpjTransp: '11222333000181',
      vDC: original.total,
      qrCode: original.qrCode,
    });
    // The item without NCM went as the chapter "00" the layout requires; the form shows it empty again.
    expect(content.itens.map((i) => i.ncm)).toEqual(['49019900', '00']);
    const form = formOfDce(content);
    expect(form.itens.map((i) => [i.ncm, i.quantidade, i.valorUnitario])).toEqual([
      ['49019900', '2', '10,10'],
      ['', '1,5', '0,33333333'],
    ]);
    const again = prepared(dcePayloadOf(form));
    expect(readDceContent(again.xml, parser)).toEqual(content);
  });

  it('reads an own-system DC-e (the company declares, no issuer group) and a foreign recipient back', () => {
    const xml = prepared(
      dcePayload({
        tipoEmitente: 'proprio',
        emitente: undefined,
        site: undefined,
        destinatario: { idOutros: 'RNE-V123456-X', nome: 'John Smith', endereco: DCE_ENDERECO_RJ },
      }),
    );
    const content = readDceContent(xml.xml, parser);
    expect(content.tpEmit).toBe('2');
    expect(content.issuer).toBeNull();
    expect(content.emitente.cnpj).toBe(EMIT_CNPJ);
    expect(content.destinatario).toMatchObject({ idOutros: 'RNE-V123456-X', cpf: null, cnpj: null });
    const form = formOfDce(content);
    expect(form.tipoEmitente).toBe('proprio');
    // The company is the declarant: nothing of it goes back in the body.
    expect(form.emitente).toEqual(EMPTY_DCE_PARTY);
    expect(form.destinatario).toMatchObject({ outroDoc: true, cpfCnpj: 'RNE-V123456-X' });
    expect(readDceContent(prepared(dcePayloadOf(form)).xml, parser)).toEqual(content);
  });

  it('fills the recipient from a registered customer, a foreign one by its id', () => {
    const customer = {
      xNome: 'MERCADO EXEMPLO LTDA',
      cnpj: '11222333000181',
      cpf: null,
      idEstrangeiro: null,
      ie: null,
      fone: '1133334444',
      email: 'compras@mercado.example',
      endereco: {
        xLgr: 'Rua A',
        nro: '10',
        xCpl: 'sala 2',
        xBairro: 'Centro',
        cMun: '3550308',
        xMun: 'São Paulo',
        uf: 'SP',
        cep: '01001000',
      },
    };
    expect(dcePartyOfCustomer(customer)).toEqual({
      ...EMPTY_DCE_PARTY,
      nome: 'MERCADO EXEMPLO LTDA',
      cpfCnpj: '11222333000181',
      xLgr: 'Rua A',
      nro: '10',
      xCpl: 'sala 2',
      xBairro: 'Centro',
      cMun: '3550308',
      xMun: 'São Paulo',
      uf: 'SP',
      cep: '01001000',
      fone: '1133334444',
      email: 'compras@mercado.example',
    });
    const foreign = dcePartyOfCustomer({
      ...customer,
      cnpj: null,
      idEstrangeiro: 'P1234567',
      endereco: null,
    });
    expect(foreign.outroDoc).toBe(true);
    expect(foreign.cpfCnpj).toBe('P1234567');
    expect(dcePayloadOf(filled({ destinatario: foreign })).destinatario.idOutros).toBe('P1234567');
  });

  it('follows the issuer type with the carriage: a carrier carries the goods itself, the others go by the Correios', () => {
    const carrier = withTipoEmitente(filled(), 'transportadora');
    expect(carrier.modalidade).toBe('transportadora');
    // With no CNPJ typed the service writes the company's as the carrier's: the body leaves it out.
    expect(dcePayloadOf(carrier).transporte).toEqual({ modalidade: 'transportadora' });
    expect(prepared(dcePayloadOf(carrier)).model.transp).toEqual({ modTrans: 2, CNPJTransp: EMIT_CNPJ });
    expect(withTipoEmitente(carrier, 'marketplace').modalidade).toBe('correios');
    // A modality chosen by hand stays.
    const ownMeans = withTipoEmitente({ ...filled(), modalidade: 'proprio' }, 'transportadora');
    expect(ownMeans.modalidade).toBe('proprio');
    const otherCarrier = { ...carrier, cnpjTransportadora: '11222333000181' };
    expect(withTipoEmitente(otherCarrier, 'marketplace').modalidade).toBe('transportadora');
  });
});

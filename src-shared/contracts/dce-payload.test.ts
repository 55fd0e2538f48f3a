import { describe, expect, it } from 'vitest';
import { DCE_ADDRESS } from '../../test/fixtures/dce-body.ts';
import { parseDcePayload } from './dce-payload.ts';

const endereco = DCE_ADDRESS;

const spellingA = {
  tipoEmitente: 'marketplace',
  emitente: { cpf: '529.982.247-25', nome: 'Maria Vendedora', endereco },
  destinatario: {
    cpfCnpj: '11222333000181',
    nome: 'Loja Destino Ltda',
    endereco: { ...endereco, email: 'a@b.com' },
  },
  itens: [
    { descricao: 'Livro usado', quantidade: 2, valorUnitario: 10.1, ncm: '49019900' },
    { descricao: 'Camiseta', quantidade: '1.5', valorUnitario: '0.33333333' },
  ],
  transporte: { modalidade: 'transportadora', cnpjTransportadora: '11.222.333/0001-81' },
  observacoes: [{ campo: 'pedido', texto: '123' }],
};

const spellingB = {
  tipo_emitente: 1,
  emitente: { cpf: '52998224725', razao_social: 'Maria Vendedora', endereco },
  destinatario: { cpf_cnpj: '11222333000181', nome: 'Loja Destino Ltda', endereco },
  itens: [
    { descricao: 'Livro usado', quantidade: 2, valor_unitario: 10.1, informacoes_adicionais: 'capa dura' },
  ],
  transporte: { modalidade: 2, cnpj_transportadora: '11222333000181' },
  informacoes_complementares: 'Pedido 55',
};

describe('parseDcePayload', () => {
  it('reads spelling A, with exact decimal text for quantities and values', () => {
    const r = parseDcePayload(spellingA);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.spellingB).toBe(false);
    expect(r.payload.tipoEmitente).toBe('marketplace');
    expect(r.payload.emitente?.cpf).toBe('52998224725');
    expect(r.payload.destinatario.endereco.cep).toBe('80010000');
    expect(r.payload.itens.map((i) => [i.quantidade, i.valorUnitario])).toEqual([
      ['2', '10.1'],
      ['1.5', '0.33333333'],
    ]);
    expect(r.payload.transporte).toEqual({
      modalidade: 'transportadora',
      cnpjTransportadora: '11222333000181',
    });
  });

  it('reads spelling B into the same payload (codes for the issuer type and modality, razao_social)', () => {
    const r = parseDcePayload(spellingB);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.spellingB).toBe(true);
    expect(r.payload.tipoEmitente).toBe('marketplace');
    expect(r.payload.emitente?.nome).toBe('Maria Vendedora');
    expect(r.payload.itens[0]?.informacoesAdicionais).toBe('capa dura');
    expect(r.payload.transporte?.modalidade).toBe('transportadora');
    expect(r.payload.informacoesComplementares).toBe('Pedido 55');
  });

  it('reports every fault at once, in spelling A', () => {
    const r = parseDcePayload({
      tipoEmitente: 4,
      emitente: { cpf: '111', cnpj: '11222333000181', nome: 'M', endereco: { ...endereco, cMun: '3550308' } },
      destinatario: { nome: 'Loja', endereco },
      itens: [{ descricao: '', quantidade: 0, valorUnitario: 1.123456789, ncm: '123' }],
      transporte: { modalidade: 'correios', cnpjTransportadora: '11222333000181' },
      extra: true,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const fields = Object.fromEntries(r.errors.map((e) => [e.field, e.error]));
    expect(fields).toMatchObject({
      tipoEmitente: 'reserved to the Correios (tpEmit 4)',
      'emitente.cpf': expect.stringContaining('invalid CPF'),
      'emitente.nome': expect.stringContaining('at least 2'),
      'emitente.endereco.cMun': 'municipality code is not in UF PR',
      'itens[0].descricao': expect.stringContaining('at least 1'),
      'itens[0].quantidade': 'must be above zero',
      'itens[0].valorUnitario': expect.stringContaining('8 decimal'),
      'itens[0].ncm': expect.stringContaining('NCM'),
      extra: 'unknown field',
      'destinatario.cpfCnpj': expect.stringContaining('required'),
      'emitente.cnpj': 'give only one of cpf, cnpj, cpfCnpj or idOutros',
      'transporte.cnpjTransportadora': 'only with the modality transportadora',
    });
    expect(r.errors).toHaveLength(12);
  });

  it('names the faults in spelling B when the caller writes it, also for fields it did not send', () => {
    const r = parseDcePayload({
      tipo_emitente: 0,
      destinatario: { cpf_cnpj: '00000000000', endereco },
      itens: [{ descricao: 'x', quantidade: 1, valor_unitario: -1 }],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.fromEntries(r.errors.map((e) => [e.field, e.error]))).toEqual({
      tipo_emitente: 'reserved to the fisco app (tpEmit 0)',
      'destinatario.cpf_cnpj': 'invalid CPF or CNPJ',
      'destinatario.razao_social': expect.stringContaining('expected string'),
      'itens[0].valor_unitario': expect.stringContaining('an amount'),
    });
  });

  it('refuses an alphanumeric CNPJ: the DC-e layout 1.00 writes digits only', () => {
    const r = parseDcePayload({
      ...spellingA,
      destinatario: { ...spellingA.destinatario, cpfCnpj: '12ABC34501DE35' },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      { field: 'destinatario.cpfCnpj', error: 'the DC-e layout 1.00 takes a numeric CNPJ only' },
    ]);
  });

  it('refuses more than 999 items and an empty list', () => {
    const item = { descricao: 'x', quantidade: 1, valorUnitario: 1 };
    const many = parseDcePayload({ ...spellingA, itens: Array.from({ length: 1000 }, () => item) });
    const none = parseDcePayload({ ...spellingA, itens: [] });
    expect(many.ok || many.errors).toEqual([{ field: 'itens', error: 'at most 999 items' }]);
    expect(none.ok || none.errors).toEqual([{ field: 'itens', error: 'at least one item is required' }]);
  });
});

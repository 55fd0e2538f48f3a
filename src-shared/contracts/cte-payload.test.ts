// The §2.7 CT-e payload: the specification's field names, and what is left to the fiscal rules.
import { describe, expect, it } from 'vitest';
import { ctePayloadSchema } from './cte-payload.ts';

const party = { nome: 'Industria Modelo Ltda', cpfCnpj: '11.222.333/0001-81' };
const base = {
  customerId: '0b8e7a52-58a4-4f4e-9a51-2d7c3f6f1c11',
  modal: '01',
  cfop: '6353',
  natOp: 'Prestacao de servico de transporte',
  ufIni: 'sp',
  xMunIni: 'Campinas',
  ufFim: 'MG',
  xMunFim: 'Belo Horizonte',
  toma: '3',
  remetente: party,
  destinatario: { nome: 'Joao da Silva', cpfCnpj: '529.982.247-25' },
  valorTotal: 100,
  componentesValor: [{ nome: 'Frete peso', valor: 100 }],
  docsOriginarios: ['not a key yet'],
};

describe('ctePayloadSchema', () => {
  it('takes the §2.7 names and normalizes UF and CPF/CNPJ', () => {
    const parsed = ctePayloadSchema.parse(base);
    expect(parsed.ufIni).toBe('SP');
    expect(parsed.remetente.cpfCnpj).toBe('11222333000181');
    expect(parsed.destinatario.cpfCnpj).toBe('52998224725');
  });

  it('leaves totals, CFOP direction and NF-e keys to the rules 512/522/529', () => {
    const parsed = ctePayloadSchema.safeParse({
      ...base,
      valorTotal: 1,
      cfop: '5353',
      docsOriginarios: [{}],
    });
    expect(parsed.success).toBe(true);
  });

  it('refuses unknown fields, a bad CPF/CNPJ and more than two decimals', () => {
    const parsed = ctePayloadSchema.safeParse({
      ...base,
      extra: 1,
      destinatario: { nome: 'Joao da Silva', cpfCnpj: '12345678901' },
      valorTotal: 1.005,
    });
    expect(parsed.success).toBe(false);
    const paths = parsed.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['', 'destinatario.cpfCnpj', 'valorTotal']));
  });

  it('toma 1, 2 and 4 require their party, reported with every other fault at once', () => {
    const parsed = ctePayloadSchema.safeParse({ ...base, toma: '1', customerId: 'x', extra: 1 });
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['customerId', '', 'expedidor']);
    expect(ctePayloadSchema.safeParse({ ...base, toma: '2' }).error?.issues[0]?.path).toEqual(['recebedor']);
    expect(ctePayloadSchema.safeParse({ ...base, toma: '4' }).error?.issues[0]?.path).toEqual(['tomador']);
    expect(ctePayloadSchema.safeParse({ ...base, toma: '1', expedidor: party }).success).toBe(true);
  });

  it('takes the vehicle, the amount to receive and observations under their added names', () => {
    const parsed = ctePayloadSchema.parse({
      ...base,
      veiculo: { placa: 'abc 1234', uf: 'mg' },
      valorReceber: 90,
      observacoes: ' Fragil ',
    });
    expect(parsed.veiculo).toEqual({ placa: 'ABC1234', uf: 'MG' });
    expect(parsed.valorReceber).toBe(90);
    expect(parsed.observacoes).toBe('Fragil');
  });
});

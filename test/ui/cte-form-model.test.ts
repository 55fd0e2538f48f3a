// The CT-e form's logic without a browser: CFOP from the route, components summed in cents against the
// total, carried NF-e keys checked as the service's rule 529 does, and the §2.7 body it sends.
import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src-shared/contracts/api-client.ts';
import { errorMessage } from '../../src-renderer/src/messages.ts';
import { ctePayloadSchema } from '../../src-shared/contracts/cte-payload.ts';
import { accessKeyCheckDigit } from '../../src-main/fiscal/access-key.ts';
import { checkNfeKeys } from '../../src-main/fiscal/cte/rules.ts';
import {
  EMPTY_PARTY,
  carriedKeys,
  componentsTotal,
  ctePayloadOf,
  currentFieldErrors,
  keyCheckDigit,
  nfeKeyProblem,
  partyOfCustomer,
  suggestedCfop,
  takerField,
  totalMismatch,
  valueAt,
  type CteForm,
} from '../../src-renderer/src/backoffice/cte-form-model.ts';

/** An NF-e key (model 55) of SP, CNPJ 11.222.333/0001-81, number `n`, with its right check digit. */
function nfeKey(n: number, cnpj = '11222333000181'): string {
  const first43 = `352611${cnpj}55001${String(n).padStart(9, '0')}1${String(n).padStart(8, '0')}`;
  return `${first43}${accessKeyCheckDigit(first43)}`;
}

const FORM: CteForm = {
  customerId: '0b5cb9a4-33a4-4e55-9a39-6c1a51f1a001',
  natOp: 'PRESTACAO DE SERVICO DE TRANSPORTE',
  cfop: '6353',
  cfopTyped: false,
  ufIni: 'SP',
  xMunIni: 'Campinas',
  ufFim: 'PR',
  xMunFim: 'Curitiba',
  toma: '0',
  remetente: {
    ...EMPTY_PARTY,
    nome: 'MERCADO EXEMPLO LTDA',
    cpfCnpj: '11.222.333/0001-81',
    ie: '111111110110',
  },
  expedidor: EMPTY_PARTY,
  recebedor: EMPTY_PARTY,
  destinatario: { ...EMPTY_PARTY, nome: 'JOAO DA SILVA', cpfCnpj: '529.982.247-25' },
  valorTotal: '1.250,50',
  valorReceber: '',
  componentes: [
    { key: 1, nome: 'FRETE PESO', valor: '1.000,20' },
    { key: 2, nome: 'PEDAGIO', valor: '250,30' },
  ],
  chaves: '',
  placa: 'abc1d23',
  placaUf: 'SP',
  observacoes: '',
};

describe('CT-e form model', () => {
  it('suggests 5353 within a state and 6353 between states, nothing while an end is missing', () => {
    expect(suggestedCfop('SP', 'SP')).toBe('5353');
    expect(suggestedCfop('SP', 'PR')).toBe('6353');
    expect(suggestedCfop('', 'PR')).toBe('');
  });

  it('sums the components in cents (0,10 + 0,20 is exactly 0,30) and compares them with the total', () => {
    const rows = [
      { key: 1, nome: 'A', valor: '0,10' },
      { key: 2, nome: 'B', valor: '0,20' },
    ];
    expect(componentsTotal(rows)).toBe(30n);
    expect(totalMismatch({ valorTotal: '0,30', componentes: rows })).toBeNull();
    expect(totalMismatch({ valorTotal: '0,31', componentes: rows })).toBe(
      'difere da soma dos componentes (R$ 0,30)',
    );
    expect(componentsTotal(FORM.componentes)).toBe(125050n);
    expect(totalMismatch(FORM)).toBeNull();
  });

  it('checks carried keys like rule 529: length, model 55 and the check digit, alphanumeric CNPJ included', () => {
    const good = nfeKey(1);
    const alnum = nfeKey(2, '12ABC34501DE35');
    const wrongDigit = `${good.slice(0, 43)}${(Number(good[43]) + 1) % 10}`;
    const cteModel = `${good.slice(0, 20)}57${good.slice(22, 43)}`;
    const nfceKey = `${cteModel}${accessKeyCheckDigit(cteModel)}`;
    for (const [key, problem] of [
      [good, null],
      [alnum, null],
      [wrongDigit, 'dígito verificador não confere'],
      [nfceKey, 'não é de NF-e: modelo 57, esperado 55'],
      [good.slice(0, 43), 'deve ter 44 dígitos (tem 43)'],
    ] as const) {
      expect(nfeKeyProblem(key)).toBe(problem);
      // The service's rule agrees with the form on every key.
      expect(checkNfeKeys([key]).length === 0).toBe(problem === null);
    }
    expect(keyCheckDigit(alnum.slice(0, 43))).toBe(accessKeyCheckDigit(alnum.slice(0, 43)));
    // One per line, pasted with spaces between the groups; blank lines are not keys.
    const spaced = good.replace(/(\d{4})(?=\d)/g, '$1 ');
    expect(carriedKeys(`${spaced}\n\n${wrongDigit}\n`)).toEqual([
      { key: good, problem: null },
      { key: wrongDigit, problem: 'dígito verificador não confere' },
    ]);
  });

  it('builds a body the API schema accepts, with the exact amounts and the vehicle', () => {
    const body = ctePayloadOf({ ...FORM, chaves: `${nfeKey(7)}\n${nfeKey(8)}` });
    const parsed = ctePayloadSchema.safeParse(body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(body.valorTotal).toBe(1250.5);
    expect(body.componentesValor).toEqual([
      { nome: 'FRETE PESO', valor: 1000.2 },
      { nome: 'PEDAGIO', valor: 250.3 },
    ]);
    expect(body.modal).toBe('01');
    expect(body.docsOriginarios).toEqual([nfeKey(7), nfeKey(8)]);
    expect(body.veiculo).toEqual({ placa: 'abc1d23', uf: 'SP' });
    // No address typed: none sent (the service takes the taker's from the customer).
    expect(body.remetente).toEqual({
      nome: 'MERCADO EXEMPLO LTDA',
      cpfCnpj: '11.222.333/0001-81',
      ie: '111111110110',
    });
  });

  it('sends money that is not money as null, so the API names the field', () => {
    const body = ctePayloadOf({ ...FORM, valorTotal: 'doze' });
    expect(JSON.parse(JSON.stringify(body)).valorTotal).toBeNull();
    const parsed = ctePayloadSchema.safeParse(JSON.parse(JSON.stringify(body)));
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['valorTotal']);
  });

  it('fills a party from a registered customer, address included', () => {
    const party = partyOfCustomer({
      xNome: 'MERCADO EXEMPLO LTDA',
      cnpj: '11222333000181',
      cpf: null,
      ie: '111111110110',
      endereco: {
        xLgr: 'Rua das Flores',
        nro: '100',
        xBairro: 'Centro',
        cMun: '3550308',
        xMun: null,
        uf: 'SP',
        cep: '01001000',
      },
    });
    expect(party).toEqual({
      nome: 'MERCADO EXEMPLO LTDA',
      cpfCnpj: '11222333000181',
      ie: '111111110110',
      xLgr: 'Rua das Flores',
      nro: '100',
      xBairro: 'Centro',
      cMun: '3550308',
      xMun: '',
      uf: 'SP',
      cep: '01001000',
    });
    const body = ctePayloadOf({ ...FORM, remetente: party });
    expect(body.remetente.endereco).toEqual({
      xLgr: 'Rua das Flores',
      nro: '100',
      xBairro: 'Centro',
      cMun: '3550308',
      uf: 'SP',
      cep: '01001000',
    });
    expect(ctePayloadSchema.safeParse(body).success).toBe(true);
  });
});

describe('API field errors on the CT-e form', () => {
  it('keep showing while their field holds what was sent, and stop once it is changed', () => {
    const sent = ctePayloadOf(FORM);
    const errors = {
      valorTotal: 'Valor total difere',
      'destinatario.cpfCnpj': 'CPF ou CNPJ inválido',
      'componentesValor[1].valor': 'deve ser maior que zero',
    };
    expect(currentFieldErrors(errors, sent, ctePayloadOf(FORM))).toEqual(errors);
    const now = ctePayloadOf({
      ...FORM,
      valorTotal: '1.250,40',
      componentes: [FORM.componentes[0]!, { key: 2, nome: 'PEDAGIO', valor: '250,20' }],
    });
    expect(currentFieldErrors(errors, sent, now)).toEqual({ 'destinatario.cpfCnpj': 'CPF ou CNPJ inválido' });
    expect(valueAt(sent, 'remetente.nome')).toBe('MERCADO EXEMPLO LTDA');
    expect(valueAt(sent, 'componentesValor[1].valor')).toBe(250.3);
    expect(valueAt(sent, 'docsOriginarios[3]')).toBeUndefined();
  });
});

describe('the taker of the CT-e form', () => {
  it('names the expedidor only with toma 1 and the recebedor only with toma 2, as the schema requires', () => {
    const expedidor = { ...EMPTY_PARTY, nome: 'ARMAZEM CENTRAL LTDA', cpfCnpj: '11222333000181' };
    const withBoth = { ...FORM, expedidor, recebedor: expedidor };
    expect(takerField('1')).toBe('expedidor');
    expect(takerField('2')).toBe('recebedor');
    const one = ctePayloadOf({ ...withBoth, toma: '1' });
    expect([one.expedidor?.nome, one.recebedor]).toEqual(['ARMAZEM CENTRAL LTDA', undefined]);
    expect(ctePayloadSchema.safeParse(one).success).toBe(true);
    const zero = ctePayloadOf({ ...withBoth, toma: '0' });
    expect([zero.expedidor, zero.recebedor]).toEqual([undefined, undefined]);
    // toma 2 without the recebedor typed: the API names the missing party.
    const missing = ctePayloadOf({ ...FORM, toma: '2' });
    expect(ctePayloadSchema.safeParse(missing).error?.issues.map((i) => i.path.join('.'))).toEqual([
      'recebedor.nome',
      'recebedor.cpfCnpj',
    ]);
  });

  it('sends valorReceber only when typed, in exact cents', () => {
    expect(ctePayloadOf(FORM).valorReceber).toBeUndefined();
    expect(ctePayloadOf({ ...FORM, valorReceber: '1.000,10' }).valorReceber).toBe(1000.1);
  });
});

describe('the rejection banner', () => {
  it("says 'Rejeição' once, with the code, whether or not the authority's text opens with it", () => {
    const body = (xMotivo: string) =>
      new ApiRequestError(422, {
        error: 'fiscal_rejection',
        message: 'rejected',
        details: [],
        cStat: '512',
        xMotivo,
      });
    expect(errorMessage(body('Rejeição: Valor total difere'))).toBe('Rejeição 512: Valor total difere');
    expect(errorMessage(body('Valor total difere'))).toBe('Rejeição 512: Valor total difere');
  });
});

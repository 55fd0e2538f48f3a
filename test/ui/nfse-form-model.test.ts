// The NFS-e form's logic without a browser: the §2.8 body it sends is one the contract's schema accepts, the
// address goes only when typed, a customer fills the taker, the national tax code is checked as the
// service's E001 does, and a note read back into the form gives the same body again.
import { describe, expect, it } from 'vitest';
import { nfsePayloadSchema } from '../../src-shared/contracts/nfse-payload.ts';
import { nfseViewSchema, type NfseView } from '../../src-shared/contracts/nfse-view.ts';
import { nationalServiceCodeFault } from '../../src-shared/nfse-service-code.ts';
import { detailPt } from '../../src-renderer/src/messages.ts';
import {
  EMPTY_TOMADOR,
  amountToInput,
  formOfNfse,
  hasAddress,
  newNfseForm,
  nfsePayloadOf,
  serviceCodeProblem,
  tomadorOfCustomer,
  type NfseForm,
} from '../../src-renderer/src/backoffice/nfse-form-model.ts';

const filled = (changes: Partial<NfseForm> = {}): NfseForm => ({
  ...newNfseForm(),
  codigo: '140101',
  descricao: 'Manutenção de ar-condicionado split',
  valor: '1.234,56',
  issRetido: true,
  tomador: {
    ...EMPTY_TOMADOR,
    cpfCnpj: '11.222.333/0001-81',
    razaoSocial: 'MERCADO EXEMPLO LTDA',
    email: 'compras@mercado.example',
  },
  ...changes,
});

describe('NFS-e form model', () => {
  it('builds a §2.8 body the contract accepts, with the value in exact cents and no address when none was typed', () => {
    const body = nfsePayloadOf(filled());
    expect(body).toEqual({
      codigo_tributacao_nacional: '140101',
      descricao_servico: 'Manutenção de ar-condicionado split',
      valor_servico: 1234.56,
      iss_retido: true,
      tomador: {
        cpf_cnpj: '11.222.333/0001-81',
        razao_social: 'MERCADO EXEMPLO LTDA',
        email: 'compras@mercado.example',
      },
    });
    const parsed = nfsePayloadSchema.safeParse(body);
    expect(parsed.success).toBe(true);
    expect(parsed.data?.tomador.cpf_cnpj).toBe('11222333000181');
  });

  it('sends the whole address once any of its fields is typed, so the API names the missing ones', () => {
    const form = filled({ tomador: { ...filled().tomador, logradouro: 'Rua das Flores', uf: 'SP' } });
    expect(hasAddress(form.tomador)).toBe(true);
    const body = nfsePayloadOf(form);
    expect(body.tomador.endereco).toEqual({
      logradouro: 'Rua das Flores',
      numero: '',
      bairro: '',
      municipio: '',
      uf: 'SP',
      cep: '',
    });
    const parsed = nfsePayloadSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    const fields = parsed.error?.issues.map((i) => i.path.join('.')).sort();
    expect(fields).toEqual([
      'tomador.endereco.bairro',
      'tomador.endereco.cep',
      'tomador.endereco.municipio',
      'tomador.endereco.numero',
    ]);
  });

  it('sends a value that is not money as null, so the service reports the field', () => {
    const body = nfsePayloadOf(filled({ valor: '12,3,4' }));
    expect(JSON.parse(JSON.stringify(body)).valor_servico).toBeNull();
    // Sums typed the Brazilian way stay exact: 0,10 + 0,20 is never 0.30000000000000004 on the wire.
    expect(nfsePayloadOf(filled({ valor: '0,30' })).valor_servico).toBe(0.3);
    expect(nfsePayloadOf(filled({ valor: 'R$ 10.000,00' })).valor_servico).toBe(10000);
  });

  it('checks the national tax code as the service does (E001), in Portuguese', () => {
    // The service's own words for the field read the same once translated.
    expect(detailPt('item 41 is not in the national list')).toBe(serviceCodeProblem('410101'));
    // E004's field message when the company's municipality has not joined the agreement.
    expect(detailPt('municipality 3550308 not joined')).toBe(
      'o município 3550308 não aderiu ao convênio da NFS-e nacional',
    );
    expect(
      detailPt(
        'ISS rate 2.50 % of the catalogue service differs from the 5.00 % the municipality registers for 140201',
      ),
    ).toBe(
      'a alíquota do ISS do serviço no catálogo (2,50 %) difere da cadastrada pelo município para 140201 (5,00 %)',
    );
    expect(serviceCodeProblem('')).toBeNull();
    expect(serviceCodeProblem('140101')).toBeNull();
    expect(serviceCodeProblem('1401')).toBe(
      'deve ter 6 dígitos (item, subitem e desdobro da lista nacional)',
    );
    expect(serviceCodeProblem('410101')).toBe('item 41 não está na lista nacional de serviços');
    expect(serviceCodeProblem('140001')).toBe('subitem 00 não está na lista nacional de serviços');
    // Whatever the form lets pass, the shared check lets pass too, and the other way round.
    for (const code of ['140101', '990101', '010100', '000101', '12345'])
      expect(serviceCodeProblem(code) === null).toBe(nationalServiceCodeFault(code) === null);
  });

  it('fills the taker from a registered customer, the IBGE code naming the municipality', () => {
    const t = tomadorOfCustomer({
      xNome: 'MERCADO EXEMPLO LTDA',
      cnpj: '11222333000181',
      cpf: null,
      email: null,
      endereco: {
        xLgr: 'Rua das Flores',
        nro: '100',
        xBairro: 'Centro',
        cMun: '3550308',
        xMun: 'São Paulo',
        uf: 'SP',
        cep: '01001000',
      },
    });
    expect(t).toEqual({
      cpfCnpj: '11222333000181',
      razaoSocial: 'MERCADO EXEMPLO LTDA',
      email: '',
      logradouro: 'Rua das Flores',
      numero: '100',
      bairro: 'Centro',
      municipio: '3550308',
      uf: 'SP',
      cep: '01001000',
    });
    const body = nfsePayloadOf(filled({ tomador: t }));
    expect(nfsePayloadSchema.safeParse(body).success).toBe(true);
    expect(body.tomador.email).toBeUndefined();
  });

  it('reads a note back into the form and gives the same body again (editing a draft)', () => {
    const view: NfseView = nfseViewSchema.parse({
      id: '6f1d3c0e-4b7a-4c3e-9a51-2d0c7a8e9b10',
      status: 'rascunho',
      numero_nfse: null,
      chave_acesso_50: null,
      data_emissao: '2026-11-24T09:00:00-03:00',
      valor_total: 1234.5,
      danfse_url: 'http://127.0.0.1/v1/nfse/x/danfse',
      xml_url: 'http://127.0.0.1/v1/nfse/x/xml',
      qr_code_url: null,
      protocolo: null,
      serie: 1,
      numero: 7,
      // cMun 3550308, tpInsc 2 (CNPJ), the CNPJ, série 00001, nDPS 7.
      dps_id: 'DPS355030821122233300018100001000000000000007',
      codigo_tributacao_nacional: '140101',
      descricao_servico: 'Manutenção',
      valor_servico: 1234.5,
      iss_retido: false,
      aliquota_iss: '5.00',
      tomador: {
        cpf_cnpj: '52998224725',
        razao_social: 'JOSE DA SILVA',
        email: null,
        endereco: {
          logradouro: 'Rua A',
          numero: '1',
          bairro: 'Centro',
          municipio: '3550308',
          uf: 'SP',
          cep: '01001000',
        },
      },
      cStat: null,
      xMotivo: null,
      substitui_nfse_id: null,
      substituida_por_nfse_id: null,
      cancelamento: null,
      ambiente: 'homologacao',
      created_at: '2026-11-24T12:00:00.000Z',
      updated_at: '2026-11-24T12:00:00.000Z',
    });
    const form = formOfNfse(view);
    expect(form.valor).toBe('1234,50');
    expect(nfsePayloadOf(form)).toEqual({
      codigo_tributacao_nacional: '140101',
      descricao_servico: 'Manutenção',
      valor_servico: 1234.5,
      iss_retido: false,
      tomador: {
        cpf_cnpj: '52998224725',
        razao_social: 'JOSE DA SILVA',
        endereco: {
          logradouro: 'Rua A',
          numero: '1',
          bairro: 'Centro',
          municipio: '3550308',
          uf: 'SP',
          cep: '01001000',
        },
      },
    });
    // A note without a taker comes back with empty taker fields, never a crash.
    expect(formOfNfse({ ...view, tomador: null }).tomador).toEqual(EMPTY_TOMADOR);
    expect(amountToInput(null)).toBe('');
  });
});

// The NFS-e form's logic without a browser: the §2.8 body built from what was typed (a taker picked from the
// customers or typed, an address only when one was given), the national tax code checked as the service's
// E001 does, and a note read back into the form for editing.
import type { NfseCreateBody } from '../../../src-shared/contracts/api-client.ts';
import type { NfseView } from '../../../src-shared/contracts/nfse-view.ts';
import { nationalServiceCodeFault } from '../../../src-shared/nfse-service-code.ts';
import { SCALE, parseScaled } from '../../../src-shared/money.ts';
import { centsToInput } from '../format.ts';
import { detailPt } from '../messages.ts';
import { wireAmount } from './cte-form-model.ts';

export interface TomadorForm {
  cpfCnpj: string;
  razaoSocial: string;
  email: string;
  logradouro: string;
  numero: string;
  bairro: string;
  /** The municipality's IBGE code (7 digits) or its name, as the API takes either. */
  municipio: string;
  uf: string;
  cep: string;
}

export interface NfseForm {
  /** The catalogue service chosen, null when the code was typed. */
  serviceId: string | null;
  codigo: string;
  descricao: string;
  valor: string;
  issRetido: boolean;
  customerId: string | null;
  tomador: TomadorForm;
}

export const EMPTY_TOMADOR: TomadorForm = {
  cpfCnpj: '',
  razaoSocial: '',
  email: '',
  logradouro: '',
  numero: '',
  bairro: '',
  municipio: '',
  uf: '',
  cep: '',
};

export const newNfseForm = (): NfseForm => ({
  serviceId: null,
  codigo: '',
  descricao: '',
  valor: '',
  issRetido: false,
  customerId: null,
  tomador: EMPTY_TOMADOR,
});

const ADDRESS_KEYS = ['logradouro', 'numero', 'bairro', 'municipio', 'uf', 'cep'] as const;

/** Whether any address field was typed: the address is optional, but once begun the API checks it whole. */
export function hasAddress(t: TomadorForm): boolean {
  return ADDRESS_KEYS.some((k) => t[k].trim() !== '');
}

/** A money number from the API (valor_servico) as the text an input shows: 1500.5 → "1500,50". */
export function amountToInput(value: number | null): string {
  if (value === null) return '';
  // The number has at most two places (the contract's rule); toFixed(2) only writes its decimal text.
  return centsToInput(parseScaled(value.toFixed(2), SCALE.money));
}

/** The pt-BR reason a typed national tax code fails the service's structural check (E001), null when it passes. */
export function serviceCodeProblem(code: string): string | null {
  const c = code.trim();
  if (c === '') return null;
  const fault = nationalServiceCodeFault(c);
  // The same words as the service's own answer for the field, translated the same way.
  return fault === null ? null : detailPt(fault);
}

/** The §2.8 create body (the same body PUT /v1/nfse/:id takes). */
export function nfsePayloadOf(form: NfseForm): NfseCreateBody {
  const t = form.tomador;
  const email = t.email.trim();
  return {
    codigo_tributacao_nacional: form.codigo.trim(),
    descricao_servico: form.descricao.trim(),
    // Exact cents up to the wire, where §2.8 types the value as a JSON number (see wireAmount).
    valor_servico: wireAmount(form.valor),
    iss_retido: form.issRetido,
    tomador: {
      cpf_cnpj: t.cpfCnpj.trim(),
      razao_social: t.razaoSocial.trim(),
      ...(email === '' ? {} : { email }),
      ...(hasAddress(t)
        ? {
            endereco: {
              logradouro: t.logradouro.trim(),
              numero: t.numero.trim(),
              bairro: t.bairro.trim(),
              municipio: t.municipio.trim(),
              uf: t.uf,
              cep: t.cep.trim(),
            },
          }
        : {}),
    },
  };
}

/** A registered customer as the taker: CNPJ or CPF, name, e-mail and address, still editable. */
export function tomadorOfCustomer(c: {
  xNome: string;
  cnpj: string | null;
  cpf: string | null;
  email: string | null;
  endereco: {
    xLgr: string | null;
    nro: string | null;
    xBairro: string | null;
    cMun: string | null;
    xMun: string | null;
    uf: string | null;
    cep: string | null;
  } | null;
}): TomadorForm {
  const e = c.endereco;
  return {
    cpfCnpj: c.cnpj ?? c.cpf ?? '',
    razaoSocial: c.xNome,
    email: c.email ?? '',
    logradouro: e?.xLgr ?? '',
    numero: e?.nro ?? '',
    bairro: e?.xBairro ?? '',
    // The IBGE code when the customer has one: it names the municipality without ambiguity.
    municipio: e?.cMun ?? e?.xMun ?? '',
    uf: e?.uf ?? '',
    cep: e?.cep ?? '',
  };
}

/** What a note (GET /v1/nfse/:id) holds, back in the form: editing a draft or a rejected note. */
export function formOfNfse(
  n: Pick<
    NfseView,
    'codigo_tributacao_nacional' | 'descricao_servico' | 'valor_servico' | 'iss_retido' | 'tomador'
  >,
): NfseForm {
  const t = n.tomador;
  const e = t?.endereco ?? null;
  return {
    serviceId: null,
    codigo: n.codigo_tributacao_nacional,
    descricao: n.descricao_servico,
    valor: amountToInput(n.valor_servico),
    issRetido: n.iss_retido,
    customerId: null,
    tomador: {
      cpfCnpj: t?.cpf_cnpj ?? '',
      razaoSocial: t?.razao_social ?? '',
      email: t?.email ?? '',
      logradouro: e?.logradouro ?? '',
      numero: e?.numero ?? '',
      bairro: e?.bairro ?? '',
      municipio: e?.municipio ?? '',
      uf: e?.uf ?? '',
      cep: e?.cep ?? '',
    },
  };
}

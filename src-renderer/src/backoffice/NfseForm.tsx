// The NFS-e form (§2.8): the service picked from the catalogue or its national tax code typed, description,
// value and ISS withheld; the taker picked from the customers or typed. A new note is issued at once
// (POST /v1/nfse) or kept as a draft; a draft or a rejected note is edited (PUT /v1/nfse/:id) and sent.
// Every field error of the API shows next to its field, a rejection (E001/E004/E012) with its code.
import { useEffect, useState } from 'react';
import type { NfseCreateBody } from '../../../src-shared/contracts/api-client.ts';
import { ApiRequestError } from '../../../src-shared/contracts/api-client.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import type { ServiceView } from '../../../src-shared/contracts/services.ts';
import { UFS } from '../../../src-shared/uf.ts';
import { ErrorBanner, Field, newIdempotencyKey, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { brl, parseBrMoney } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import { useNewCustomer } from './CustomerForm.tsx';
import { CustomerPicker } from './CustomerPicker.tsx';
import { NfseServicePicker } from './NfseServicePicker.tsx';
import { SaveActions, openSaved } from './SaveActions.tsx';
import { currentFieldErrors } from './cte-form-model.ts';
import {
  formOfNfse,
  newNfseForm,
  nfsePayloadOf,
  serviceCodeProblem,
  tomadorOfCustomer,
  type NfseForm as FormState,
  type TomadorForm,
} from './nfse-form-model.ts';
import { NationalCodeInput, ServiceValueInput } from './nfse-fields.tsx';

const T = 'tomador';
const A = 'tomador.endereco';
/** The API's field paths the form shows beside an input; the others are listed under the banner. */
const SHOWN_FIELDS = new Set([
  'codigo_tributacao_nacional',
  'aliquota_iss',
  'descricao_servico',
  'valor_servico',
  'iss_retido',
  T,
  `${T}.cpf_cnpj`,
  `${T}.razao_social`,
  `${T}.email`,
  A,
  ...['logradouro', 'numero', 'bairro', 'municipio', 'uf', 'cep'].map((k) => `${A}.${k}`),
]);

/** The note a rejected POST /v1/nfse kept (`document` of the error body), when the service kept one. */
function keptDocument(error: unknown): { id: string } | null {
  if (!(error instanceof ApiRequestError) || error.body.document === undefined) return null;
  return { id: error.body.document.id };
}

/** `id` null: a new note; otherwise the draft or rejected note being edited. */
export function NfseForm(props: { id: string | null }) {
  const { api } = useApp();
  const [form, setForm] = useState<FormState>(newNfseForm);
  const [customer, setCustomer] = useState<CustomerView | null>(null);
  // The catalogue service whose code the form holds: shown until the code is typed over.
  const [service, setService] = useState<ServiceView | null>(null);
  const action = useAction();
  const newCustomer = useNewCustomer((c) => choose(c));
  // The body of the last save: an API field error shows while its field still holds what was sent.
  const [sent, setSent] = useState<NfseCreateBody | null>(null);
  const editing = useLoad(
    () => (props.id === null ? Promise.resolve(null) : api.nfse.get(props.id)),
    [api, props.id],
  );
  const loaded = editing.data;
  useEffect(() => {
    if (loaded !== null) setForm(formOfNfse(loaded));
  }, [loaded]);

  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setTomador = (changes: Partial<TomadorForm>) =>
    setForm((f) => ({ ...f, tomador: { ...f.tomador, ...changes } }));
  const choose = (c: CustomerView) => {
    setCustomer(c);
    setForm((f) => ({ ...f, customerId: c.id, tomador: tomadorOfCustomer(c) }));
  };

  const save = async (andSend: boolean) => {
    const body = nfsePayloadOf(form);
    setSent(body);
    if (props.id !== null) {
      const id = props.id;
      const saved = await action.run(() => api.nfse.update(id, body));
      if (saved === undefined) return;
      // Saved from here on: a refused send is shown (and retried) on the note's own page.
      await openSaved(
        `/nfse/${id}`,
        andSend ? () => api.nfse.send(id, newIdempotencyKey('nfse-envio')) : null,
      );
      return;
    }
    const created = await action.run(async () => {
      if (!andSend) return api.nfse.createDraft(body, newIdempotencyKey('nfse-rascunho'));
      try {
        return await api.nfse.issue(body, newIdempotencyKey('nfse'));
      } catch (error) {
        // The national environment refused a note the service kept (status erro): its page shows why,
        // and the note is edited and sent again from there, never issued twice from this form.
        const kept = keptDocument(error);
        if (kept !== null) return kept;
        throw error;
      }
    });
    if (created !== undefined) navigate(`/nfse/${created.id}`);
  };

  const f = currentFieldErrors(action.fields, sent, nfsePayloadOf(form));
  const codeProblem = serviceCodeProblem(form.codigo);
  // E012 names the rate, which follows the code: shown beside it while the code is the one sent.
  const rateError =
    sent !== null && sent.codigo_tributacao_nacional === form.codigo.trim()
      ? action.fields['aliquota_iss']
      : undefined;
  const valorTyped = form.valor.trim() !== '' && parseBrMoney(form.valor) === null;
  const t = form.tomador;
  const tomadorInput = (
    k: keyof TomadorForm,
    label: string,
    path: string,
    extra: { wide?: boolean; mode?: 'numeric' | 'email'; hint?: string } = {},
  ) => (
    <Field
      label={label}
      error={f[path]}
      wide={extra.wide === true}
      {...(extra.hint === undefined ? {} : { hint: extra.hint })}
    >
      <input
        value={t[k]}
        onChange={(e) => setTomador({ [k]: e.target.value })}
        aria-label={`Tomador: ${label}`}
        inputMode={extra.mode}
      />
    </Field>
  );

  if (props.id !== null && loaded === null)
    return (
      <div className="page">
        {editing.error !== null ? <ErrorBanner error={editing.error} /> : 'Carregando…'}
      </div>
    );

  return (
    <div className="page" data-testid="nfse-form">
      <p>
        <a href={href(props.id === null ? '/nfse' : `/nfse/${props.id}`)}>‹ NFS-e</a>
      </p>
      <h1>{props.id === null ? 'Nova NFS-e' : `Editar NFS-e (DPS nº ${loaded?.numero ?? ''})`}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(true);
        }}
      >
        <section className="card">
          <h2>Serviço prestado</h2>
          <NfseServicePicker
            onChoose={(s) => {
              setService(s);
              setForm((cur) => ({
                ...cur,
                serviceId: s.id,
                codigo: s.codigoTributacaoNacional,
                descricao: cur.descricao.trim() === '' ? s.descricao : cur.descricao,
                valor: cur.valor.trim() === '' && s.valor !== null ? s.valor.replace('.', ',') : cur.valor,
              }));
            }}
          />
          {service !== null && form.serviceId === service.id ? (
            <p className="chosen" data-testid="chosen-service">
              Do catálogo: <strong>{service.codigo}</strong> – {service.descricao} · ISS{' '}
              {service.aliquotaIss === null
                ? 'com a alíquota do município'
                : `${service.aliquotaIss.replace('.', ',')} %`}
            </p>
          ) : null}
          <div className="form-grid">
            <Field
              label="Código de tributação nacional"
              error={f['codigo_tributacao_nacional'] ?? rateError ?? codeProblem ?? undefined}
              hint="6 dígitos: item, subitem e desdobro da lista nacional"
            >
              <NationalCodeInput
                value={form.codigo}
                onChange={(codigo) => setForm((cur) => ({ ...cur, codigo, serviceId: null }))}
              />
            </Field>
            <Field
              label="Valor do serviço (R$)"
              error={f['valor_servico'] ?? (valorTyped ? 'não é um valor' : undefined)}
            >
              <ServiceValueInput value={form.valor} onChange={(valor) => set('valor', valor)} />
            </Field>
            <label className="check">
              <input
                type="checkbox"
                checked={form.issRetido}
                onChange={(e) => set('issRetido', e.target.checked)}
                aria-label="ISS retido pelo tomador"
              />{' '}
              ISS retido pelo tomador
            </label>
          </div>
          <Field label="Descrição do serviço" error={f['descricao_servico']} wide>
            <textarea
              rows={3}
              value={form.descricao}
              onChange={(e) => set('descricao', e.target.value)}
              aria-label="Descrição do serviço"
              maxLength={2000}
            />
          </Field>
        </section>

        <section className="card" data-testid="nfse-tomador">
          <h2>Tomador do serviço</h2>
          <CustomerPicker
            customer={customer}
            label="Cliente tomador (nome, CPF ou CNPJ)"
            error={f[T]}
            onChoose={choose}
            onClear={() => {
              setCustomer(null);
              set('customerId', null);
            }}
            onNew={newCustomer.open}
          />
          <p className="muted small">Escolha um cliente cadastrado ou digite os dados do tomador:</p>
          <div className="form-grid">
            {tomadorInput('razaoSocial', 'Nome / razão social', `${T}.razao_social`, { wide: true })}
            {tomadorInput('cpfCnpj', 'CPF ou CNPJ', `${T}.cpf_cnpj`)}
            {tomadorInput('email', 'E-mail', `${T}.email`, { mode: 'email' })}
          </div>
          <h3>
            Endereço <span className="muted small">(opcional; se informado, completo)</span>
          </h3>
          {f[A] !== undefined ? <p className="field-error">{f[A]}</p> : null}
          <div className="form-grid">
            {tomadorInput('logradouro', 'Logradouro', `${A}.logradouro`, { wide: true })}
            {tomadorInput('numero', 'Número', `${A}.numero`)}
            {tomadorInput('bairro', 'Bairro', `${A}.bairro`)}
            {tomadorInput('municipio', 'Município', `${A}.municipio`, {
              hint: 'código IBGE ou nome',
            })}
            <Field label="UF" error={f[`${A}.uf`]}>
              <select
                value={t.uf}
                onChange={(e) => setTomador({ uf: e.target.value })}
                aria-label="Tomador: UF"
              >
                <option value="">—</option>
                {UFS.map((u) => (
                  <option key={u.sigla} value={u.sigla}>
                    {u.sigla}
                  </option>
                ))}
              </select>
            </Field>
            {tomadorInput('cep', 'CEP', `${A}.cep`, { mode: 'numeric' })}
          </div>
        </section>

        <section className="card totals-card">
          <dl className="props">
            <dt>Valor do serviço</dt>
            <dd className="num strong" data-testid="nfse-form-total">
              {brl(parseBrMoney(form.valor) ?? 0n)}
            </dd>
            <dt>ISS</dt>
            <dd>{form.issRetido ? 'retido pelo tomador' : 'a recolher pelo prestador'}</dd>
          </dl>
          <ErrorBanner
            error={action.error}
            extra={otherDetails(
              action.error,
              Object.keys(action.fields).filter((k) => SHOWN_FIELDS.has(k)),
            )}
          />
          <SaveActions
            pending={action.pending}
            onDraft={() => void save(false)}
            sendLabel={props.id === null ? 'Emitir NFS-e' : 'Salvar e enviar'}
            draftLabel={props.id === null ? 'Salvar rascunho' : 'Salvar'}
          />
        </section>
      </form>
      {newCustomer.dialog}
    </div>
  );
}

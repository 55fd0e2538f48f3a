// The CT-e form (road modal): taker picked from the customers, route with the CFOP suggested from it,
// sender and recipient, freight components summed in cents against the total, carried NF-e keys checked
// before sending, vehicle. Saves a draft (POST /v1/cte) and sends it (POST /v1/cte/:id/send); every field
// error of the API shows next to its field, a 422 rejection with its cStat and xMotivo.
import { useMemo, useState } from 'react';
import type { CteCreateBody } from '../../../src-shared/contracts/api-client.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import { UFS } from '../../../src-shared/uf.ts';
import { Banner, ErrorBanner, Field, RemoveRowButton, newIdempotencyKey, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { brl, centsToInput, parseBrMoney } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { href } from '../router.ts';
import { useNewCustomer } from './CustomerForm.tsx';
import { CustomerPicker } from './CustomerPicker.tsx';
import { SaveActions, openSaved } from './SaveActions.tsx';
import {
  EMPTY_PARTY,
  carriedKeys,
  componentsTotal,
  ctePayloadOf,
  currentFieldErrors,
  partyOfCustomer,
  suggestedCfop,
  takerField,
  totalMismatch,
  type ComponentRow,
  type CteForm as FormState,
  type PartyForm,
  type PartyKey,
  type Toma,
} from './cte-form-model.ts';

let rowKey = 0;
const newForm = (): FormState => ({
  customerId: null,
  natOp: 'PRESTACAO DE SERVICO DE TRANSPORTE',
  cfop: '',
  cfopTyped: false,
  ufIni: '',
  xMunIni: '',
  ufFim: '',
  xMunFim: '',
  toma: '0',
  remetente: EMPTY_PARTY,
  expedidor: EMPTY_PARTY,
  recebedor: EMPTY_PARTY,
  destinatario: EMPTY_PARTY,
  valorTotal: '',
  valorReceber: '',
  componentes: [{ key: ++rowKey, nome: 'FRETE PESO', valor: '' }],
  chaves: '',
  placa: '',
  placaUf: '',
  observacoes: '',
});

/** Fields the form shows next to an input; the others are listed under the banner. */
const PARTY_KEYS = ['nome', 'cpfCnpj', 'ie', 'xLgr', 'nro', 'xBairro', 'cMun', 'xMun', 'uf', 'cep'] as const;
const ADDRESS_KEYS = new Set(['xLgr', 'nro', 'xBairro', 'cMun', 'xMun', 'uf', 'cep']);
const partyPath = (party: string, k: string) =>
  ADDRESS_KEYS.has(k) ? `${party}.endereco.${k}` : `${party}.${k}`;
const PARTIES: readonly PartyKey[] = ['remetente', 'expedidor', 'recebedor', 'destinatario'];
const PARTY_TITLE: Readonly<Record<PartyKey, string>> = {
  remetente: 'Remetente',
  expedidor: 'Expedidor',
  recebedor: 'Recebedor',
  destinatario: 'Destinatário',
};
const SHOWN_FIELDS = new Set([
  'customerId',
  'modal',
  'cfop',
  'natOp',
  'ufIni',
  'xMunIni',
  'ufFim',
  'xMunFim',
  'toma',
  'valorTotal',
  'valorReceber',
  'expedidor',
  'recebedor',
  'componentesValor',
  'docsOriginarios',
  'veiculo',
  'veiculo.placa',
  'veiculo.uf',
  'observacoes',
  ...PARTIES.map((p) => `${p}.endereco`),
  ...PARTIES.flatMap((p) => PARTY_KEYS.map((k) => partyPath(p, k))),
]);
const isShown = (field: string) =>
  SHOWN_FIELDS.has(field) ||
  /^componentesValor\[\d+\]\.(nome|valor)$/.test(field) ||
  /^docsOriginarios\[\d+\]/.test(field);

export function CteForm() {
  const { api } = useApp();
  const [form, setForm] = useState<FormState>(newForm);
  const [customer, setCustomer] = useState<CustomerView | null>(null);
  const [keysChecked, setKeysChecked] = useState(false);
  const action = useAction();
  const newCustomer = useNewCustomer((c) => choose(c));
  // The body of the last save: an API field error shows while its field still holds what was sent.
  const [sent, setSent] = useState<CteCreateBody | null>(null);

  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => setForm((f) => ({ ...f, [k]: v }));
  // The CFOP follows the route until the operator types one.
  const setRoute = (changes: Partial<Pick<FormState, 'ufIni' | 'ufFim' | 'xMunIni' | 'xMunFim'>>) =>
    setForm((f) => {
      const next = { ...f, ...changes };
      return next.cfopTyped ? next : { ...next, cfop: suggestedCfop(next.ufIni, next.ufFim) };
    });
  const setParty = (which: PartyKey, changes: Partial<PartyForm>) =>
    setForm((f) => ({ ...f, [which]: { ...f[which], ...changes } }));
  const setComponent = (key: number, changes: Partial<ComponentRow>) =>
    setForm((f) => ({
      ...f,
      componentes: f.componentes.map((c) => (c.key === key ? { ...c, ...changes } : c)),
    }));

  const choose = (c: CustomerView) => {
    setCustomer(c);
    // The customer takes the service: its data fill the taker's party, still editable.
    setForm((f) => ({ ...f, customerId: c.id, [takerField(f.toma)]: partyOfCustomer(c) }));
  };
  const setToma = (toma: Toma) =>
    setForm((f) => {
      const next = { ...f, toma };
      const target = takerField(toma);
      if (customer === null || f[target].nome.trim() !== '') return next;
      return { ...next, [target]: partyOfCustomer(customer) };
    });

  const sumCents = useMemo(() => componentsTotal(form.componentes), [form.componentes]);
  const mismatch = totalMismatch(form);
  const keys = useMemo(() => carriedKeys(form.chaves), [form.chaves]);
  const badKeys = keys.filter((k) => k.problem !== null);

  const save = async (andSend: boolean) => {
    setKeysChecked(true);
    if (badKeys.length > 0) return;
    const body = ctePayloadOf(form);
    setSent(body);
    const created = await action.run(() => api.cte.create(body, newIdempotencyKey('cte')));
    if (created === undefined) return;
    // The draft exists from here on: a refused send is shown (and retried) on its own page, never by
    // creating a second draft from this form.
    await openSaved(
      `/cte/${created.id}`,
      andSend ? () => api.cte.send(created.id, newIdempotencyKey('cte-envio')) : null,
    );
  };

  const f = currentFieldErrors(action.fields, sent, ctePayloadOf(form));
  const partyFields = (which: PartyKey) => {
    const title = PARTY_TITLE[which];
    const p = form[which];
    const err = (k: string) => f[partyPath(which, k)];
    const input = (
      k: (typeof PARTY_KEYS)[number],
      label: string,
      extra: { wide?: boolean; mode?: 'numeric' } = {},
    ) => (
      <Field label={label} error={err(k)} wide={extra.wide === true}>
        <input
          value={p[k]}
          onChange={(e) => setParty(which, { [k]: e.target.value })}
          aria-label={`${title}: ${label}`}
          inputMode={extra.mode}
        />
      </Field>
    );
    return (
      <section className="card" data-testid={`cte-${which}`}>
        <h2>
          {title}
          {takerField(form.toma) === which ? <span className="tag">tomador</span> : null}
        </h2>
        {f[`${which}.endereco`] !== undefined ? (
          <p className="field-error">{f[`${which}.endereco`]}</p>
        ) : null}
        <div className="form-grid">
          {input('nome', 'Nome / razão social', { wide: true })}
          {input('cpfCnpj', 'CPF ou CNPJ')}
          {input('ie', 'Inscrição estadual')}
          {input('xLgr', 'Logradouro', { wide: true })}
          {input('nro', 'Número')}
          {input('xBairro', 'Bairro')}
          {input('xMun', 'Município')}
          {input('cMun', 'Código IBGE do município', { mode: 'numeric' })}
          <Field label="UF" error={err('uf')}>
            <UfSelect value={p.uf} onChange={(uf) => setParty(which, { uf })} label={`${title}: UF`} />
          </Field>
          {input('cep', 'CEP', { mode: 'numeric' })}
        </div>
      </section>
    );
  };

  return (
    <div className="page" data-testid="cte-form">
      <p>
        <a href={href('/cte')}>‹ CT-e</a>
      </p>
      <h1>Novo CT-e</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(true);
        }}
      >
        <section className="card">
          <h2>Tomador do serviço</h2>
          <div className="form-grid">
            <Field label="Quem paga o frete" error={f['toma']}>
              <select
                value={form.toma}
                onChange={(e) => setToma(e.target.value as Toma)}
                aria-label="Tomador"
              >
                <option value="0">0 – Remetente</option>
                <option value="1">1 – Expedidor</option>
                <option value="2">2 – Recebedor</option>
                <option value="3">3 – Destinatário</option>
              </select>
            </Field>
          </div>
          <CustomerPicker
            customer={customer}
            label="Cliente tomador (nome, CPF ou CNPJ)"
            error={f['customerId']}
            onChoose={choose}
            onClear={() => {
              setCustomer(null);
              set('customerId', null);
            }}
            onNew={newCustomer.open}
          />
        </section>

        <section className="card">
          <h2>Prestação</h2>
          <div className="form-grid">
            <Field label="Modal" error={f['modal']}>
              <input value="01 – Rodoviário" readOnly aria-label="Modal" />
            </Field>
            <Field label="Natureza da operação" error={f['natOp']} wide>
              <input
                value={form.natOp}
                onChange={(e) => set('natOp', e.target.value)}
                aria-label="Natureza da operação"
              />
            </Field>
            <Field label="UF de início" error={f['ufIni']}>
              <UfSelect value={form.ufIni} onChange={(ufIni) => setRoute({ ufIni })} label="UF de início" />
            </Field>
            <Field label="Município de início" error={f['xMunIni']}>
              <input
                value={form.xMunIni}
                onChange={(e) => setRoute({ xMunIni: e.target.value })}
                aria-label="Município de início"
              />
            </Field>
            <Field label="UF de término" error={f['ufFim']}>
              <UfSelect value={form.ufFim} onChange={(ufFim) => setRoute({ ufFim })} label="UF de término" />
            </Field>
            <Field label="Município de término" error={f['xMunFim']}>
              <input
                value={form.xMunFim}
                onChange={(e) => setRoute({ xMunFim: e.target.value })}
                aria-label="Município de término"
              />
            </Field>
            <Field
              label="CFOP"
              error={f['cfop']}
              hint={
                form.cfopTyped
                  ? `sugerido: ${suggestedCfop(form.ufIni, form.ufFim) || '—'}`
                  : '5353 no estado, 6353 entre estados'
              }
            >
              <input
                value={form.cfop}
                onChange={(e) =>
                  setForm((s) => ({ ...s, cfop: e.target.value, cfopTyped: e.target.value !== '' }))
                }
                aria-label="CFOP"
                inputMode="numeric"
                maxLength={4}
              />
            </Field>
          </div>
        </section>

        <div className="two-col">
          {partyFields('remetente')}
          {partyFields('destinatario')}
        </div>
        {/* Named by the CT-e when it takes the service (toma 1 and 2). */}
        {form.toma === '1' || form.toma === '2' ? (
          <div className="two-col">{partyFields(form.toma === '1' ? 'expedidor' : 'recebedor')}</div>
        ) : null}

        <section className="card">
          <h2>Valores da prestação</h2>
          {f['componentesValor'] !== undefined ? (
            <p className="field-error">{f['componentesValor']}</p>
          ) : null}
          <table className="grid form-items" data-testid="cte-components">
            <thead>
              <tr>
                <th>Componente</th>
                <th className="num">Valor (R$)</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {form.componentes.map((c, i) => {
                const typed = c.valor.trim() !== '' && parseBrMoney(c.valor) === null;
                const valorError =
                  f[`componentesValor[${i}].valor`] ?? (typed ? 'não é um valor' : undefined);
                return (
                  <tr key={c.key}>
                    <td>
                      <input
                        value={c.nome}
                        onChange={(e) => setComponent(c.key, { nome: e.target.value })}
                        aria-label={`Nome do componente ${i + 1}`}
                        maxLength={15}
                      />
                      {f[`componentesValor[${i}].nome`] !== undefined ? (
                        <span className="field-error">{f[`componentesValor[${i}].nome`]}</span>
                      ) : null}
                    </td>
                    <td>
                      <input
                        className="num"
                        value={c.valor}
                        onChange={(e) => setComponent(c.key, { valor: e.target.value })}
                        aria-label={`Valor do componente ${i + 1}`}
                        inputMode="decimal"
                      />
                      {valorError !== undefined ? <span className="field-error">{valorError}</span> : null}
                    </td>
                    <td>
                      <RemoveRowButton
                        label={`Remover componente ${i + 1}`}
                        disabled={form.componentes.length === 1}
                        onClick={() =>
                          setForm((s) => ({
                            ...s,
                            componentes: s.componentes.filter((x) => x.key !== c.key),
                          }))
                        }
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <div className="actions">
            <button
              type="button"
              className="small"
              onClick={() =>
                setForm((s) => ({
                  ...s,
                  componentes: [...s.componentes, { key: ++rowKey, nome: '', valor: '' }],
                }))
              }
            >
              + Componente
            </button>
          </div>
          <div className="form-grid">
            <Field label="Soma dos componentes">
              <input
                value={brl(sumCents)}
                readOnly
                className="num"
                aria-label="Soma dos componentes"
                data-testid="cte-sum"
              />
            </Field>
            <Field label="Valor total da prestação (R$)" error={f['valorTotal'] ?? mismatch ?? undefined}>
              <input
                className="num"
                value={form.valorTotal}
                onChange={(e) => set('valorTotal', e.target.value)}
                aria-label="Valor total"
                inputMode="decimal"
              />
            </Field>
            <div className="field">
              <span className="field-label">&nbsp;</span>
              <button
                type="button"
                className="small"
                onClick={() => set('valorTotal', centsToInput(sumCents))}
              >
                Usar a soma
              </button>
            </div>
            <Field label="Valor a receber (R$)" error={f['valorReceber']} hint="vazio: o total">
              <input
                className="num"
                value={form.valorReceber}
                onChange={(e) => set('valorReceber', e.target.value)}
                aria-label="Valor a receber"
                inputMode="decimal"
              />
            </Field>
          </div>
        </section>

        <section className="card">
          <h2>Documentos transportados</h2>
          <Field
            label="Chaves de acesso das NF-e (uma por linha)"
            error={f['docsOriginarios']}
            hint={`${keys.length} ${keys.length === 1 ? 'chave' : 'chaves'}`}
            wide
          >
            <textarea
              className="mono"
              rows={3}
              value={form.chaves}
              onChange={(e) => set('chaves', e.target.value)}
              aria-label="Chaves das NF-e"
              spellCheck={false}
            />
          </Field>
          <ul className="key-problems" data-testid="key-problems">
            {keys.map((k, i) => {
              const apiError = f[`docsOriginarios[${i}]`];
              // A key still being typed is not wrong yet: its problem shows once it is complete or on saving.
              const show =
                apiError !== undefined || (k.problem !== null && (keysChecked || k.key.length >= 44));
              if (!show) return null;
              return (
                <li key={i} className="field-error">
                  Linha {i + 1} ({k.key.slice(0, 8)}…): {k.problem ?? apiError}
                </li>
              );
            })}
          </ul>
        </section>

        <section className="card">
          <h2>Veículo e observações</h2>
          <div className="form-grid">
            <Field label="Placa" error={f['veiculo.placa'] ?? f['veiculo']}>
              <input
                value={form.placa}
                onChange={(e) => set('placa', e.target.value.toUpperCase())}
                aria-label="Placa"
                maxLength={8}
              />
            </Field>
            <Field label="UF do veículo" error={f['veiculo.uf']}>
              <UfSelect value={form.placaUf} onChange={(uf) => set('placaUf', uf)} label="UF do veículo" />
            </Field>
          </div>
          <Field label="Observações" error={f['observacoes']} wide>
            <textarea
              value={form.observacoes}
              onChange={(e) => set('observacoes', e.target.value)}
              aria-label="Observações"
            />
          </Field>
        </section>

        <section className="card totals-card">
          <dl className="props">
            <dt>Componentes</dt>
            <dd className="num">{brl(sumCents)}</dd>
            <dt>Total da prestação</dt>
            <dd className="num strong" data-testid="cte-form-total">
              {brl(parseBrMoney(form.valorTotal) ?? 0n)}
            </dd>
          </dl>
          {keysChecked && badKeys.length > 0 ? (
            <Banner kind="error" testId="key-banner">
              {badKeys.length === 1
                ? 'Uma chave de NF-e é inválida'
                : `${badKeys.length} chaves de NF-e são inválidas`}
              : corrija antes de enviar.
            </Banner>
          ) : null}
          <ErrorBanner
            error={action.error}
            extra={otherDetails(action.error, Object.keys(action.fields).filter(isShown))}
          />
          <SaveActions pending={action.pending} onDraft={() => void save(false)} />
        </section>
      </form>
      {newCustomer.dialog}
    </div>
  );
}

/** The UF of an address or a route, "—" while none is chosen; the DC-e form uses it too. */
export function UfSelect(props: { value: string; onChange: (uf: string) => void; label: string }) {
  return (
    <select value={props.value} onChange={(e) => props.onChange(e.target.value)} aria-label={props.label}>
      <option value="">—</option>
      {UFS.map((u) => (
        <option key={u.sigla} value={u.sigla}>
          {u.sigla}
        </option>
      ))}
    </select>
  );
}

// The DC-e form: who issues (marketplace, own system, carrier) and who declares, the recipient picked from
// the customers or typed, the items with their exact total as typed, the carriage and the extra text. A new
// DC-e is kept as a draft (POST /v1/dce) or kept and sent at once; a draft or a rejected DC-e is edited (PUT
// /v1/dce/:id, the content read back from its XML) and sent. Every field error of the API shows beside its field.
import { useEffect, useState } from 'react';
import type { DceModalidade, DcePayloadInput } from '../../../src-shared/contracts/dce-payload.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import { DCE_MODALIDADES_TRANSPORTE } from '../../../src-shared/contracts/dce-view.ts';
import { SCALE } from '../../../src-shared/money.ts';
import {
  ErrorBanner,
  Field,
  RemoveRowButton,
  newIdempotencyKey,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { brl } from '../format.ts';
import { detailPt, fieldErrors, otherDetails } from '../messages.ts';
import { href } from '../router.ts';
import { UfSelect } from './CteForm.tsx';
import { useNewCustomer } from './CustomerForm.tsx';
import { CustomerPicker } from './CustomerPicker.tsx';
import { MODALIDADE_PT, TipoEmitenteSelect } from './DceList.tsx';
import { SaveActions, openSaved } from './SaveActions.tsx';
import { currentFieldErrors } from './cte-form-model.ts';
import {
  dcePartyOfCustomer,
  dcePayloadOf,
  formOfDce,
  itemCents,
  newDceForm,
  newItemRow,
  newObservacaoRow,
  totalCents,
  typedScaled,
  withTipoEmitente,
  type DceForm as FormState,
  type DceItemRow,
  type DcePartyForm,
} from './dce-form-model.ts';
import { readDceContent } from './dce-xml.ts';

type PartyKey = 'emitente' | 'destinatario';
const PARTY_TITLE: Readonly<Record<PartyKey, string>> = {
  emitente: 'Remetente (declarante)',
  destinatario: 'Destinatário',
};
const ADDRESS_KEYS = [
  'xLgr',
  'nro',
  'xCpl',
  'xBairro',
  'cMun',
  'xMun',
  'uf',
  'cep',
  'fone',
  'email',
] as const;
const ITEM_KEYS = ['descricao', 'ncm', 'quantidade', 'valorUnitario', 'informacoesAdicionais'] as const;

/** The service's words for the DC-e's own rules (dce-payload.ts, fiscal/dce/normalize.ts), said to the operator. */
const DCE_DETAILS: readonly (readonly [RegExp, string])[] = [
  [
    /^must be the 2-digit chapter or the 8-digit NCM$/,
    'o capítulo (2 dígitos) ou o NCM completo (8 dígitos)',
  ],
  [/^must have at least 1 characters$/, 'obrigatório'],
  [/^must be above zero$/, 'deve ser maior que zero'],
  [/^must be a quantity with up to/, 'não é uma quantidade (até 4 casas decimais)'],
  [/^must be an amount with up to/, 'não é um valor (até 8 casas decimais)'],
  [/^the DC-e layout 1\.00 takes a numeric CNPJ only/, 'o leiaute 1.00 da DC-e só aceita CNPJ numérico'],
  [/^must have 2 to 20 characters without spaces$/, 'de 2 a 20 caracteres, sem espaços'],
  [/^must have 7 to 12 digits$/, 'de 7 a 12 dígitos'],
  [/^unknown IBGE municipality code$/, 'código IBGE de município desconhecido'],
  [
    /^required with the issuer type marketplace/,
    'obrigatório para emitir como marketplace (ou nas configurações da DC-e)',
  ],
  [/^required with the issuer type/, 'obrigatório: quem envia a mercadoria e declara o conteúdo'],
  [/^required with the modality transportadora$/, 'obrigatório com transportadora'],
  [/^required: the CPF, CNPJ or idOutros/, 'obrigatório'],
  [/^at least one item is required$/, 'inclua ao menos um item'],
  [/^must be between 0 and 999$/, 'um número de 0 a 999'],
  [/^must be an e-mail address$/, 'e-mail inválido'],
];

function dceDetailPt(text: string): string {
  return DCE_DETAILS.find(([pattern]) => pattern.test(text))?.[1] ?? detailPt(text);
}

/** Whether the API's field path is one the form shows beside an input; the others are listed under the banner. */
function isShown(field: string): boolean {
  if (
    [
      'tipoEmitente',
      'serie',
      'site',
      'itens',
      'transporte',
      'informacoesComplementares',
      'observacoes',
    ].includes(field) ||
    /^observacoes\[\d+\]\.(campo|texto)$/.test(field) ||
    ['transporte.modalidade', 'transporte.cnpjTransportadora'].includes(field)
  )
    return true;
  const party = /^(emitente|destinatario)(?:\.(cpfCnpj|idOutros|nome|endereco(?:\.(\w+))?))?$/.exec(field);
  if (party !== null) return party[3] === undefined || (ADDRESS_KEYS as readonly string[]).includes(party[3]);
  const item = /^itens\[\d+\](?:\.(\w+))?$/.exec(field);
  return item !== null && (item[1] === undefined || (ITEM_KEYS as readonly string[]).includes(item[1]));
}

/** `id` null: a new DC-e; otherwise the draft or rejected DC-e being edited. */
export function DceForm(props: { id: string | null }) {
  const { api, company } = useApp();
  const [form, setForm] = useState<FormState>(() => newDceForm());
  const [touched, setTouched] = useState(false);
  const [customer, setCustomer] = useState<CustomerView | null>(null);
  const action = useAction();
  const newCustomer = useNewCustomer((c) => choose(c));
  // The body of the last save: an API field error shows while its field still holds what was sent.
  const [sent, setSent] = useState<DcePayloadInput | null>(null);
  const settings = useLoad(() => api.companies.dceSettings(company.id), [api, company.id]);
  const editing = useLoad(
    () =>
      props.id === null
        ? Promise.resolve(null)
        : Promise.all([api.dce.get(props.id), api.dce.xml(props.id)]).then(([view, xml]) => ({
            view,
            content: readDceContent(xml.dce_xml, new DOMParser()),
          })),
    [api, props.id],
  );
  const loaded = editing.data;
  useEffect(() => {
    if (loaded !== null) setForm(formOfDce(loaded.content));
  }, [loaded]);
  // A new DC-e starts as the company issues them, until the operator changes anything.
  const defaults = settings.data;
  useEffect(() => {
    if (defaults !== null && props.id === null && !touched)
      setForm((f) => withTipoEmitente(f, defaults.tipo_emitente));
  }, [defaults, props.id, touched]);

  const update = (change: (f: FormState) => FormState) => {
    setTouched(true);
    setForm(change);
  };
  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => update((f) => ({ ...f, [k]: v }));
  const setParty = (which: PartyKey, changes: Partial<DcePartyForm>) =>
    update((f) => ({ ...f, [which]: { ...f[which], ...changes } }));
  const setItem = (key: number, changes: Partial<DceItemRow>) =>
    update((f) => ({ ...f, itens: f.itens.map((i) => (i.key === key ? { ...i, ...changes } : i)) }));
  const choose = (c: CustomerView) => {
    setCustomer(c);
    setParty('destinatario', dcePartyOfCustomer(c));
  };

  const save = async (andSend: boolean) => {
    const body = dcePayloadOf(form);
    setSent(body);
    const id =
      props.id === null
        ? (await action.run(() => api.dce.create(body, newIdempotencyKey('dce'))))?.id
        : (await action.run(() => api.dce.update(props.id ?? '', body)))?.id;
    if (id === undefined) return;
    // Saved from here on: a refused send is shown (and retried) on the DC-e's own page, never by saving a
    // second DC-e from this form.
    await openSaved(`/dce/${id}`, andSend ? () => api.dce.send(id, newIdempotencyKey('dce-envio')) : null);
  };

  const f = currentFieldErrors(fieldErrors(action.error, dceDetailPt), sent, dcePayloadOf(form));
  const total = totalCents(form.itens);

  if (props.id !== null && loaded === null)
    return (
      <div className="page">
        {editing.error !== null ? <ErrorBanner error={editing.error} /> : 'Carregando…'}
      </div>
    );

  const partyFields = (which: PartyKey) => {
    const title = PARTY_TITLE[which];
    const p = form[which];
    const docPath = `${which}.${p.outroDoc ? 'idOutros' : 'cpfCnpj'}`;
    const input = (
      k: keyof DcePartyForm & (typeof ADDRESS_KEYS)[number],
      label: string,
      extra: { wide?: boolean; mode?: 'numeric' | 'email'; hint?: string } = {},
    ) => (
      <Field
        label={label}
        error={f[`${which}.endereco.${k}`]}
        wide={extra.wide === true}
        {...(extra.hint === undefined ? {} : { hint: extra.hint })}
      >
        <input
          value={p[k]}
          onChange={(e) => setParty(which, { [k]: e.target.value })}
          aria-label={`${title}: ${label}`}
          inputMode={extra.mode}
        />
      </Field>
    );
    return (
      <>
        {f[which] !== undefined ? <p className="field-error">{f[which]}</p> : null}
        {f[`${which}.endereco`] !== undefined ? (
          <p className="field-error">{f[`${which}.endereco`]}</p>
        ) : null}
        <div className="form-grid">
          <Field label="Nome / razão social" error={f[`${which}.nome`]} wide>
            <input
              value={p.nome}
              onChange={(e) => setParty(which, { nome: e.target.value })}
              aria-label={`${title}: Nome / razão social`}
            />
          </Field>
          <Field label="Documento">
            <select
              value={p.outroDoc ? 'outro' : 'cpfCnpj'}
              onChange={(e) => setParty(which, { outroDoc: e.target.value === 'outro' })}
              aria-label={`${title}: Documento`}
            >
              <option value="cpfCnpj">CPF ou CNPJ</option>
              <option value="outro">Outro (estrangeiro)</option>
            </select>
          </Field>
          <Field label={p.outroDoc ? 'Identificação' : 'CPF ou CNPJ'} error={f[docPath]}>
            <input
              value={p.cpfCnpj}
              onChange={(e) => setParty(which, { cpfCnpj: e.target.value })}
              aria-label={`${title}: ${p.outroDoc ? 'Identificação' : 'CPF ou CNPJ'}`}
            />
          </Field>
          {input('xLgr', 'Logradouro', { wide: true })}
          {input('nro', 'Número')}
          {input('xCpl', 'Complemento')}
          {input('xBairro', 'Bairro')}
          {input('xMun', 'Município')}
          {input('cMun', 'Código IBGE do município', { mode: 'numeric' })}
          <Field label="UF" error={f[`${which}.endereco.uf`]}>
            <UfSelect value={p.uf} onChange={(uf) => setParty(which, { uf })} label={`${title}: UF`} />
          </Field>
          {input('cep', 'CEP', { mode: 'numeric' })}
          {input('fone', 'Telefone', { mode: 'numeric' })}
          {/* The sender's address has no e-mail in the layout (TEndeEmi). */}
          {which === 'destinatario' ? input('email', 'E-mail', { mode: 'email' }) : null}
        </div>
      </>
    );
  };

  const tipo = form.tipoEmitente;
  return (
    <div className="page" data-testid="dce-form">
      <p>
        <a href={href(props.id === null ? '/dce' : `/dce/${props.id}`)}>‹ DC-e</a>
      </p>
      <h1>
        {props.id === null ? 'Nova DC-e' : `Editar DC-e nº ${loaded?.view.numero ?? ''}`}{' '}
        <span className="muted small">Declaração de Conteúdo eletrônica</span>
      </h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(true);
        }}
      >
        <section className="card">
          <h2>Emissão</h2>
          <div className="form-grid">
            <Field
              label="Emitida como"
              error={f['tipoEmitente']}
              hint={
                tipo === 'proprio'
                  ? 'a empresa declara o conteúdo que ela mesma envia'
                  : `a empresa emite em nome do remetente (${tipo === 'marketplace' ? 'grupo Marketplace' : 'grupo Transportadora'})`
              }
              wide
            >
              <TipoEmitenteSelect value={tipo} onChange={(t) => update((f) => withTipoEmitente(f, t))} />
            </Field>
            <Field
              label="Série"
              error={f['serie']}
              hint={defaults !== null ? `vazio: série ${defaults.serie} das configurações` : undefined}
            >
              <input
                value={form.serie}
                onChange={(e) => set('serie', e.target.value.replace(/\D/g, ''))}
                aria-label="Série"
                inputMode="numeric"
                maxLength={3}
                disabled={props.id !== null}
              />
            </Field>
            {tipo === 'marketplace' ? (
              <Field
                label="Site do marketplace"
                error={f['site']}
                hint={
                  defaults?.site !== null && defaults?.site !== undefined
                    ? `vazio: ${defaults.site}`
                    : 'sem site nas configurações: informe-o'
                }
                wide
              >
                <input
                  value={form.site}
                  onChange={(e) => set('site', e.target.value)}
                  aria-label="Site do marketplace"
                />
              </Field>
            ) : null}
          </div>
        </section>

        {tipo !== 'proprio' ? (
          <section className="card" data-testid="dce-emitente">
            <h2>{PARTY_TITLE.emitente}</h2>
            <p className="muted small">Quem envia a mercadoria e declara o conteúdo.</p>
            {partyFields('emitente')}
          </section>
        ) : null}

        <section className="card" data-testid="dce-destinatario">
          <h2>{PARTY_TITLE.destinatario}</h2>
          <CustomerPicker
            customer={customer}
            label="Cliente destinatário (nome, CPF ou CNPJ)"
            error={undefined}
            onChoose={choose}
            onClear={() => setCustomer(null)}
            onNew={newCustomer.open}
          />
          <p className="muted small">Escolha um cliente cadastrado ou digite os dados do destinatário:</p>
          {partyFields('destinatario')}
        </section>

        <section className="card">
          <h2>Conteúdo declarado</h2>
          {f['itens'] !== undefined ? <p className="field-error">{f['itens']}</p> : null}
          <table className="grid form-items" data-testid="dce-items">
            <thead>
              <tr>
                <th>Descrição</th>
                <th>NCM</th>
                <th className="num">Quantidade</th>
                <th className="num">Valor unitário</th>
                <th className="num">Total</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {form.itens.map((row, i) => (
                <ItemRow
                  key={row.key}
                  row={row}
                  n={i + 1}
                  errorOf={(k) => f[`itens[${i}].${k}`] ?? (k === 'descricao' ? f[`itens[${i}]`] : undefined)}
                  onChange={(changes) => setItem(row.key, changes)}
                  onRemove={
                    form.itens.length > 1
                      ? () => update((s) => ({ ...s, itens: s.itens.filter((x) => x.key !== row.key) }))
                      : null
                  }
                />
              ))}
            </tbody>
          </table>
          <button
            type="button"
            className="small"
            onClick={() => update((s) => ({ ...s, itens: [...s.itens, newItemRow()] }))}
          >
            + Adicionar item
          </button>
        </section>

        <section className="card">
          <h2>Transporte</h2>
          <div className="form-grid">
            <Field label="Modalidade" error={f['transporte.modalidade'] ?? f['transporte']}>
              <select
                value={form.modalidade}
                onChange={(e) => set('modalidade', e.target.value as DceModalidade)}
                aria-label="Modalidade de transporte"
              >
                {DCE_MODALIDADES_TRANSPORTE.map((m, code) => (
                  <option key={m} value={m}>
                    {code} – {MODALIDADE_PT[m]}
                  </option>
                ))}
              </select>
            </Field>
            {form.modalidade === 'transportadora' ? (
              <Field
                label="CNPJ da transportadora"
                error={f['transporte.cnpjTransportadora']}
                {...(tipo === 'transportadora' ? { hint: 'vazio: o CNPJ da empresa' } : {})}
              >
                <input
                  value={form.cnpjTransportadora}
                  onChange={(e) => set('cnpjTransportadora', e.target.value)}
                  aria-label="CNPJ da transportadora"
                />
              </Field>
            ) : null}
          </div>
          <Field label="Informações complementares" error={f['informacoesComplementares']} wide>
            <textarea
              rows={3}
              value={form.informacoesComplementares}
              onChange={(e) => set('informacoesComplementares', e.target.value)}
              aria-label="Informações complementares"
              maxLength={5000}
            />
          </Field>
          <h3>
            Observações{' '}
            <span className="muted small">
              (até 10, campo de até 20 e texto de até 60 caracteres; vão no grupo{' '}
              {tipo === 'marketplace' ? 'do marketplace' : 'do emitente'})
            </span>
          </h3>
          {f['observacoes'] !== undefined ? <p className="field-error">{f['observacoes']}</p> : null}
          {form.observacoes.length > 0 ? (
            <table className="grid form-items" data-testid="dce-observacoes">
              <tbody>
                {form.observacoes.map((o, i) => {
                  const cell = (k: 'campo' | 'texto', label: string, max: number) => (
                    <td>
                      <input
                        className="item-text"
                        value={o[k]}
                        maxLength={max}
                        onChange={(e) =>
                          update((s) => ({
                            ...s,
                            observacoes: s.observacoes.map((x) =>
                              x.key === o.key ? { ...x, [k]: e.target.value } : x,
                            ),
                          }))
                        }
                        aria-label={`${label} da observação ${i + 1}`}
                      />
                      {f[`observacoes[${i}].${k}`] !== undefined ? (
                        <span className="field-error">{f[`observacoes[${i}].${k}`]}</span>
                      ) : null}
                    </td>
                  );
                  return (
                    <tr key={o.key}>
                      {cell('campo', 'Campo', 20)}
                      {cell('texto', 'Texto', 60)}
                      <td>
                        <RemoveRowButton
                          label={`Remover observação ${i + 1}`}
                          onClick={() =>
                            update((s) => ({
                              ...s,
                              observacoes: s.observacoes.filter((x) => x.key !== o.key),
                            }))
                          }
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : null}
          {form.observacoes.length < 10 ? (
            <button
              type="button"
              className="small"
              onClick={() => update((s) => ({ ...s, observacoes: [...s.observacoes, newObservacaoRow()] }))}
            >
              + Adicionar observação
            </button>
          ) : null}
        </section>

        <section className="card totals-card">
          <dl className="props">
            <dt>Valor total declarado</dt>
            <dd className="num strong" data-testid="dce-form-total">
              {brl(total)}
            </dd>
            <dt>Itens</dt>
            <dd>{form.itens.length}</dd>
          </dl>
          <ErrorBanner
            error={action.error}
            extra={otherDetails(
              action.error,
              Object.keys(action.fields).filter((k) => isShown(k)),
            )}
          />
          <SaveActions
            pending={action.pending}
            onDraft={() => void save(false)}
            sendLabel="Salvar e enviar"
            draftLabel={props.id === null ? 'Salvar rascunho' : 'Salvar'}
          />
        </section>
      </form>
      {newCustomer.dialog}
    </div>
  );
}

/** One item: its fields with the API's messages (or what is wrong as typed) and its exact line total. */
function ItemRow(props: {
  row: DceItemRow;
  n: number;
  errorOf: (field: (typeof ITEM_KEYS)[number]) => string | undefined;
  onChange: (changes: Partial<DceItemRow>) => void;
  onRemove: (() => void) | null;
}) {
  const { row, n } = props;
  const typedWrong = (text: string, scale: number) => text.trim() !== '' && typedScaled(text, scale) === null;
  const cell = (
    k: (typeof ITEM_KEYS)[number],
    label: string,
    extra: {
      num?: boolean;
      mode?: 'numeric' | 'decimal';
      wrong?: string | null;
      text?: boolean;
      placeholder?: string;
    } = {},
  ) => {
    const error = props.errorOf(k) ?? extra.wrong ?? undefined;
    return (
      <>
        <input
          className={extra.num === true ? 'num' : extra.text === true ? 'item-text' : undefined}
          placeholder={extra.placeholder}
          value={row[k]}
          onChange={(e) => props.onChange({ [k]: e.target.value })}
          aria-label={`${label} do item ${n}`}
          inputMode={extra.mode}
        />
        {error !== undefined ? <span className="field-error">{error}</span> : null}
      </>
    );
  };
  const cents = itemCents(row);
  return (
    <tr>
      <td>
        {cell('descricao', 'Descrição', { text: true })}
        {cell('informacoesAdicionais', 'Informações adicionais', {
          text: true,
          placeholder: 'informações adicionais (opcional)',
        })}
      </td>
      <td>{cell('ncm', 'NCM', { mode: 'numeric' })}</td>
      <td>
        {cell('quantidade', 'Quantidade', {
          num: true,
          mode: 'decimal',
          wrong: typedWrong(row.quantidade, SCALE.quantity) ? 'até 4 casas decimais' : null,
        })}
      </td>
      <td>
        {cell('valorUnitario', 'Valor unitário', {
          num: true,
          mode: 'decimal',
          wrong: typedWrong(row.valorUnitario, SCALE.unitPrice) ? 'não é um valor' : null,
        })}
      </td>
      <td className="num" data-testid={`dce-item-total-${n}`}>
        {cents === null ? '—' : brl(cents)}
      </td>
      <td>
        {props.onRemove !== null ? (
          <RemoveRowButton label={`Remover item ${n}`} onClick={props.onRemove} />
        ) : null}
      </td>
    </tr>
  );
}

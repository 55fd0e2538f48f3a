// The NF-e form: recipient, items from the catalogue, payments, freight; saves a draft (POST /v1/nfe or PUT
// /v1/nfe/:id, which keeps the number) and sends it (POST /v1/nfe/:id/send?sync=true). Field errors of the
// API are shown next to the field they name (`itens[1].quantidade`). A devolução draft (finalidade 4 made by
// POST /v1/nfe/:id/devolucao) stays an entrada, and its items go back with their code and quantity only: the
// service prorates the taxes, discount and charges of the new quantity from the referenced sale again.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { NfeDraftPayload } from '../../../src-shared/contracts/api-client.ts';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import { SCALE, formatScaled, lineTotal, parseScaled, sum } from '../../../src-shared/money.ts';
import { TPAG, type TPag } from '../../../src-shared/tables/payment-methods.ts';
import { Banner, ErrorBanner, Field, RemoveRowButton, newIdempotencyKey, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { brl, brlText, parseBrDecimal } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import { useNewCustomer } from './CustomerForm.tsx';
import { CustomerPicker } from './CustomerPicker.tsx';
import { SaveActions } from './SaveActions.tsx';
import { readDraft } from './nfe-xml.ts';
import { HitList, useSearchHits } from './search-hits.tsx';

interface ItemRow {
  key: number;
  product: ProductView | null;
  codigo: string;
  descricao: string;
  quantidade: string;
  valorUnitario: string;
  valorDesconto: string;
  cfop: string | null;
  /**
   * An item of a devolução draft: its discount is the sale's, prorated by the service for the quantity sent
   * (not typed); `loaded` is the quantity and discount the draft had, to show the prorated discount meanwhile.
   */
  loaded: { quantidade: string; valorDesconto: string } | null;
}

interface PaymentRow {
  key: number;
  forma: TPag;
  valor: string;
}

interface FormState {
  naturezaOperacao: string;
  tipoOperacao: 0 | 1;
  finalidade: 1 | 2 | 3 | 4;
  nfeReferenciada: string[];
  customer: CustomerView | null;
  itens: ItemRow[];
  pagamentos: PaymentRow[];
  valorFrete: string;
  informacoesAdicionais: string;
}

let rowKey = 0;
const EMPTY: FormState = {
  naturezaOperacao: 'VENDA DE MERCADORIA',
  tipoOperacao: 1,
  finalidade: 1,
  nfeReferenciada: [],
  customer: null,
  itens: [],
  pagamentos: [{ key: ++rowKey, forma: '15', valor: '' }],
  valorFrete: '',
  informacoesAdicionais: '',
};

const PAYMENT_CHOICES = (Object.keys(TPAG) as TPag[]).filter((t) => t !== '22');

/** Text typed as money/quantity → bigint at `scale`, 0 when empty or invalid (the API says which). */
function scaled(text: string, scale: number): bigint {
  const t = parseBrDecimal(text);
  if (t === null) return 0n;
  try {
    return parseScaled(t, scale);
  } catch {
    return 0n;
  }
}

/** The discount of a row; a devolução item's is the loaded one prorated to the quantity now typed. */
function itemDiscount(row: ItemRow): bigint {
  if (row.loaded === null) return scaled(row.valorDesconto, SCALE.money);
  const before = scaled(row.loaded.quantidade, SCALE.quantity);
  const discount = scaled(row.loaded.valorDesconto, SCALE.money);
  if (before === 0n) return discount;
  // Half-up to the cent, as the service rounds (src-shared/money.ts).
  return (discount * scaled(row.quantidade, SCALE.quantity) * 2n + before) / (2n * before);
}

function itemTotal(row: ItemRow): bigint {
  return (
    lineTotal(scaled(row.quantidade, SCALE.quantity), scaled(row.valorUnitario, SCALE.unitPrice)) -
    itemDiscount(row)
  );
}

/** Decimal text for the API from what was typed; the raw text when it is not a number (the API explains). */
function apiDecimal(text: string): string {
  return parseBrDecimal(text) ?? text;
}

export function NfeForm(props: { id: string | null }) {
  const { api } = useApp();
  const [form, setForm] = useState<FormState>(EMPTY);
  const [loaded, setLoaded] = useState(props.id === null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [number, setNumber] = useState<number | null>(null);
  const searchProducts = useCallback(
    (q: string) => api.products.list({ q, limit: 8 }).then((r) => r.data.filter((p) => p.ativo)),
    [api],
  );
  const products = useSearchHits(searchProducts, 1);
  const action = useAction();
  const newCustomer = useNewCustomer((c) => set('customer', c));

  // Editing: the draft's content comes back from its XML; products and the customer from the catalogue.
  useEffect(() => {
    if (props.id === null) {
      setForm({ ...EMPTY, pagamentos: [{ key: ++rowKey, forma: '15', valor: '' }] });
      setLoaded(true);
      setNumber(null);
      return;
    }
    const id = props.id;
    let live = true;
    void (async () => {
      try {
        const [view, xml] = await Promise.all([api.documents.get(55, id), api.documents.xml(55, id)]);
        const draft = readDraft(xml);
        const devolucao = draft.finalidade === 4 && draft.nfeReferenciada.length > 0;
        const itens: ItemRow[] = [];
        for (const i of draft.itens) {
          const found = await api.products.list({ q: i.codigo, limit: 10 });
          const product = found.data.find((p) => p.cProd === i.codigo) ?? null;
          const quantidade = i.quantidade.replace(/\.?0+$/, '').replace('.', ',');
          const valorDesconto = i.valorDesconto === null ? '' : i.valorDesconto.replace('.', ',');
          itens.push({
            key: ++rowKey,
            product,
            codigo: i.codigo,
            descricao: product?.xProd ?? i.codigo,
            quantidade,
            valorUnitario: i.valorUnitario.replace(/(\.\d\d\d*?)0+$/, '$1').replace('.', ','),
            valorDesconto,
            cfop: i.cfop,
            loaded: devolucao ? { quantidade, valorDesconto } : null,
          });
        }
        let customer: CustomerView | null = null;
        if (draft.destDoc !== null) {
          const found = await api.customers.list({ q: draft.destDoc, limit: 5 });
          customer = found.data.find((c) => c.cnpj === draft.destDoc || c.cpf === draft.destDoc) ?? null;
        }
        if (!live) return;
        setNumber(view.numero);
        setForm({
          naturezaOperacao: draft.naturezaOperacao,
          tipoOperacao: draft.tipoOperacao,
          finalidade: draft.finalidade,
          nfeReferenciada: draft.nfeReferenciada,
          customer,
          itens,
          pagamentos: draft.pagamentos.map((p) => ({
            key: ++rowKey,
            forma: (p.forma in TPAG ? p.forma : '99') as TPag,
            valor: p.valor.replace('.', ','),
          })),
          valorFrete: draft.valorFrete?.replace('.', ',') ?? '',
          informacoesAdicionais: draft.informacoesAdicionais ?? '',
        });
        setLoaded(true);
      } catch (e) {
        if (live) setLoadError(e);
      }
    })();
    return () => {
      live = false;
    };
  }, [api, props.id]);

  const totals = useMemo(() => {
    const produtos = sum(form.itens.map(itemTotal));
    const frete = scaled(form.valorFrete, SCALE.money);
    const pago = sum(form.pagamentos.map((p) => scaled(p.valor, SCALE.money)));
    return { produtos, frete, total: produtos + frete, pago };
  }, [form]);

  const devolution = form.finalidade === 4;
  // The freight of a devolução is the sale's, prorated item by item by the service.
  const proratedFreight = devolution && form.nfeReferenciada.length > 0;
  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setItem = (key: number, changes: Partial<ItemRow>) =>
    setForm((f) => ({ ...f, itens: f.itens.map((i) => (i.key === key ? { ...i, ...changes } : i)) }));
  const setPayment = (key: number, changes: Partial<PaymentRow>) =>
    setForm((f) => ({
      ...f,
      pagamentos: f.pagamentos.map((p) => (p.key === key ? { ...p, ...changes } : p)),
    }));

  const addProduct = (p: ProductView) => {
    setForm((f) => ({
      ...f,
      itens: [
        ...f.itens,
        {
          key: ++rowKey,
          product: p,
          codigo: p.cProd,
          descricao: p.xProd,
          quantidade: '1',
          valorUnitario: p.vUnCom.replace(/(\.\d\d\d*?)0+$/, '$1').replace('.', ','),
          valorDesconto: '',
          cfop: null,
          loaded: null,
        },
      ],
    }));
    products.clear();
  };

  const payload = (): NfeDraftPayload => {
    const body: NfeDraftPayload = {
      naturezaOperacao: form.naturezaOperacao,
      tipoOperacao: form.tipoOperacao,
      finalidade: form.finalidade,
      itens: form.itens.map((i) => ({
        ...(i.product !== null ? { productId: i.product.id } : {}),
        // A devolução item names the sold item by its code; its discount is prorated by the service.
        ...(i.product === null || i.loaded !== null ? { codigo: i.codigo } : {}),
        quantidade: apiDecimal(i.quantidade),
        valorUnitario: apiDecimal(i.valorUnitario),
        ...(i.valorDesconto.trim() === '' || i.loaded !== null
          ? {}
          : { valorDesconto: apiDecimal(i.valorDesconto) }),
        ...(i.cfop === null ? {} : { cfop: i.cfop }),
      })),
    };
    if (form.customer !== null) body.customerId = form.customer.id;
    if (form.nfeReferenciada.length > 0) body.nfeReferenciada = form.nfeReferenciada;
    const pagamentos = form.pagamentos.filter((p) => p.valor.trim() !== '');
    if (pagamentos.length > 0 || !devolution)
      body.pagamentos = pagamentos.map((p) => ({
        forma: p.forma,
        valor: apiDecimal(p.valor),
        ...(p.forma === '99' ? { descricao: 'Outros' } : {}),
      }));
    if (form.valorFrete.trim() !== '' && !proratedFreight) body.valorFrete = apiDecimal(form.valorFrete);
    if (form.informacoesAdicionais.trim() !== '')
      body.informacoesAdicionais = form.informacoesAdicionais.trim();
    return body;
  };

  const save = async (andSend: boolean) => {
    const result = await action.run(async () => {
      const saved =
        props.id === null ? await api.nfe.create(payload()) : await api.nfe.update(props.id, payload());
      if (!andSend) return { id: saved.id, sent: null };
      const sent = await api.nfe.send(saved.id, newIdempotencyKey('envio'));
      return { id: saved.id, sent };
    });
    if (result === undefined) return;
    navigate(`/documentos/55/${result.id}${result.sent === null ? '' : '?enviada=1'}`);
  };

  if (loadError !== null)
    return (
      <div className="page">
        <ErrorBanner error={loadError} />
      </div>
    );
  if (!loaded) return <div className="page">Carregando rascunho…</div>;
  const f = action.fields;
  const itemErr = (i: number, field: string) => f[`itens[${i}].${field}`];

  return (
    <div className="page" data-testid="nfe-form">
      <p>
        <a href={href('/documentos?modelo=55')}>‹ Documentos</a>
      </p>
      <h1>
        {props.id === null ? 'Nova NF-e' : `NF-e nº ${number ?? ''} (rascunho)`}
        {devolution ? <span className="tag">devolução</span> : null}
      </h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(true);
        }}
      >
        <section className="card">
          <h2>Destinatário</h2>
          <CustomerPicker
            customer={form.customer}
            label="Buscar cliente (nome, CPF ou CNPJ)"
            error={f['customerId'] ?? f['customer']}
            onChoose={(c) => set('customer', c)}
            onClear={() => set('customer', null)}
            onNew={newCustomer.open}
          />
        </section>

        <section className="card">
          <h2>Operação</h2>
          <div className="form-grid">
            <Field label="Natureza da operação" error={f['naturezaOperacao']}>
              <input
                value={form.naturezaOperacao}
                onChange={(e) => set('naturezaOperacao', e.target.value)}
              />
            </Field>
            <Field label="Finalidade" error={f['finalidade']}>
              <select
                value={form.finalidade}
                onChange={(e) => set('finalidade', Number(e.target.value) as FormState['finalidade'])}
              >
                <option value={1}>1 – Normal</option>
                <option value={2}>2 – Complementar</option>
                <option value={3}>3 – Ajuste</option>
                <option value={4}>4 – Devolução</option>
              </select>
            </Field>
            {form.nfeReferenciada.length > 0 ? (
              <Field label="NF-e referenciada" error={f['nfeReferenciada']} wide>
                <input value={form.nfeReferenciada.join(', ')} readOnly className="mono" />
              </Field>
            ) : null}
          </div>
        </section>

        <section className="card">
          <h2>Itens</h2>
          {f['itens'] !== undefined ? <p className="field-error">{f['itens']}</p> : null}
          <table className="grid form-items">
            <thead>
              <tr>
                <th>Produto</th>
                <th className="num">Quantidade</th>
                <th className="num">Valor unitário</th>
                <th className="num">Desconto</th>
                <th>CFOP</th>
                <th className="num">Total</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {form.itens.map((row, i) => (
                <tr key={row.key}>
                  <td>
                    <strong>{row.codigo}</strong> {row.descricao}
                    {itemErr(i, 'productId') !== undefined || itemErr(i, 'fiscalProfileId') !== undefined ? (
                      <span className="field-error">
                        {' '}
                        {itemErr(i, 'productId') ?? itemErr(i, 'fiscalProfileId')}
                      </span>
                    ) : null}
                  </td>
                  <td>
                    <input
                      className="num"
                      value={row.quantidade}
                      onChange={(e) => setItem(row.key, { quantidade: e.target.value })}
                      aria-label={`Quantidade do item ${i + 1}`}
                      inputMode="decimal"
                    />
                    {itemErr(i, 'quantidade') !== undefined ? (
                      <span className="field-error">{itemErr(i, 'quantidade')}</span>
                    ) : null}
                  </td>
                  <td>
                    <input
                      className="num"
                      value={row.valorUnitario}
                      onChange={(e) => setItem(row.key, { valorUnitario: e.target.value })}
                      aria-label={`Valor unitário do item ${i + 1}`}
                      inputMode="decimal"
                    />
                    {itemErr(i, 'valorUnitario') !== undefined ? (
                      <span className="field-error">{itemErr(i, 'valorUnitario')}</span>
                    ) : null}
                  </td>
                  <td>
                    <input
                      className="num"
                      value={
                        row.loaded === null
                          ? row.valorDesconto
                          : formatScaled(itemDiscount(row), SCALE.money).replace('.', ',')
                      }
                      onChange={(e) => setItem(row.key, { valorDesconto: e.target.value })}
                      aria-label={`Desconto do item ${i + 1}`}
                      inputMode="decimal"
                      readOnly={row.loaded !== null}
                      title={row.loaded !== null ? 'Proporcional ao desconto da venda' : undefined}
                    />
                    {itemErr(i, 'valorDesconto') !== undefined ? (
                      <span className="field-error">{itemErr(i, 'valorDesconto')}</span>
                    ) : null}
                  </td>
                  <td className="mono">
                    {row.cfop ?? '(perfil)'}
                    {itemErr(i, 'cfop') !== undefined ? (
                      <span className="field-error">{itemErr(i, 'cfop')}</span>
                    ) : null}
                  </td>
                  <td className="num">{brl(itemTotal(row))}</td>
                  <td>
                    <RemoveRowButton
                      label={`Remover item ${i + 1}`}
                      onClick={() =>
                        setForm((s) => ({ ...s, itens: s.itens.filter((x) => x.key !== row.key) }))
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="picker">
            <Field label="Adicionar produto (nome, código ou código de barras)">
              <input
                value={products.query}
                onChange={(e) => products.setQuery(e.target.value)}
                aria-label="Adicionar produto"
                autoComplete="off"
              />
            </Field>
            <HitList
              label="Produtos encontrados"
              hits={products.hits}
              text={(p) => `${p.cProd} · ${p.xProd} · ${brlText(p.vUnCom)}`}
              onChoose={addProduct}
            />
          </div>
        </section>

        <section className="card">
          <h2>Pagamento e frete</h2>
          {f['pagamentos'] !== undefined ? <p className="field-error">{f['pagamentos']}</p> : null}
          {form.pagamentos.map((p, i) => (
            <div className="form-grid" key={p.key}>
              <Field label={`Forma ${i + 1}`} error={f[`pagamentos[${i}].forma`]}>
                <select
                  value={p.forma}
                  onChange={(e) => setPayment(p.key, { forma: e.target.value as TPag })}
                  aria-label={`Forma de pagamento ${i + 1}`}
                >
                  {PAYMENT_CHOICES.map((t) => (
                    <option key={t} value={t}>
                      {t} – {TPAG[t]}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Valor" error={f[`pagamentos[${i}].valor`]}>
                <input
                  value={p.valor}
                  onChange={(e) => setPayment(p.key, { valor: e.target.value })}
                  aria-label={`Valor do pagamento ${i + 1}`}
                  inputMode="decimal"
                  placeholder={form.pagamentos.length === 1 ? brl(totals.total).replace('R$ ', '') : ''}
                />
              </Field>
              <div className="field">
                <span className="field-label">&nbsp;</span>
                <button
                  type="button"
                  className="small"
                  onClick={() =>
                    setForm((s) => ({ ...s, pagamentos: s.pagamentos.filter((x) => x.key !== p.key) }))
                  }
                >
                  Remover
                </button>
              </div>
            </div>
          ))}
          <div className="actions">
            <button
              type="button"
              className="small"
              onClick={() =>
                setForm((s) => ({
                  ...s,
                  pagamentos: [...s.pagamentos, { key: ++rowKey, forma: '01', valor: '' }],
                }))
              }
            >
              + Forma de pagamento
            </button>
            <button
              type="button"
              className="small"
              onClick={() => {
                const rest =
                  totals.total - sum(form.pagamentos.slice(0, -1).map((p) => scaled(p.valor, SCALE.money)));
                const last = form.pagamentos.at(-1);
                if (last !== undefined && rest >= 0n)
                  setPayment(last.key, { valor: formatScaled(rest, SCALE.money).replace('.', ',') });
              }}
            >
              Completar com o total
            </button>
          </div>
          <div className="form-grid">
            <Field label="Frete (R$)" error={f['valorFrete']}>
              <input
                value={form.valorFrete}
                onChange={(e) => set('valorFrete', e.target.value)}
                inputMode="decimal"
                aria-label="Frete"
                readOnly={proratedFreight}
                title={proratedFreight ? 'Proporcional ao frete da venda' : undefined}
              />
            </Field>
          </div>
          <Field label="Informações complementares" error={f['informacoesAdicionais']}>
            <textarea
              value={form.informacoesAdicionais}
              onChange={(e) => set('informacoesAdicionais', e.target.value)}
            />
          </Field>
        </section>

        <section className="card totals-card">
          <dl className="props">
            <dt>Produtos</dt>
            <dd className="num">{brl(totals.produtos)}</dd>
            <dt>Frete</dt>
            <dd className="num">{brl(totals.frete)}</dd>
            <dt>Total da nota</dt>
            <dd className="num strong" data-testid="nfe-total">
              {brl(totals.total)}
            </dd>
            <dt>Pagamentos</dt>
            <dd className="num">{brl(totals.pago)}</dd>
          </dl>
          {totals.pago !== 0n && totals.pago < totals.total ? (
            <Banner kind="warn">Os pagamentos não cobrem o total da nota.</Banner>
          ) : null}
          <ErrorBanner
            error={action.error}
            extra={otherDetails(
              action.error,
              Object.keys(f).filter(
                (k) =>
                  /^itens\[\d+\]\.(quantidade|valorUnitario|valorDesconto|productId|fiscalProfileId|cfop)$/.test(
                    k,
                  ) ||
                  /^pagamentos(\[\d+\]\.(forma|valor))?$/.test(k) ||
                  [
                    'customerId',
                    'customer',
                    'naturezaOperacao',
                    'finalidade',
                    'itens',
                    'valorFrete',
                  ].includes(k),
              ),
            )}
          />
          <SaveActions pending={action.pending} onDraft={() => void save(false)} />
        </section>
      </form>
      {newCustomer.dialog}
    </div>
  );
}

// The catalogue the cashier sells from: products (code, barcode, NCM, price, fiscal profile) and, below
// them, the fiscal profiles that say how they are taxed (FiscalProfiles.tsx).
import { useState } from 'react';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import {
  ActiveField,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  Pager,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, parseBrDecimal } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { FiscalProfilesCard, ProfileDialog } from './FiscalProfiles.tsx';

const PAGE_SIZE = 20;

export function ProductsScreen() {
  const { api } = useApp();
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api.products.list({ page, limit: PAGE_SIZE, ...(q.trim() === '' ? {} : { q: q.trim() }) }),
    [api, page, q],
  );
  const profiles = useLoad(() => api.fiscalProfiles.list({ limit: 100 }).then((r) => r.data), [api]);
  const [editing, setEditing] = useState<ProductView | 'new' | null>(null);
  const [newProfile, setNewProfile] = useState(false);
  const profileName = (id: string | null) => profiles.data?.find((p) => p.id === id)?.name ?? '—';

  return (
    <div className="page">
      <div className="page-head">
        <h1>Produtos</h1>
        <div className="actions">
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Novo produto
          </button>
          <button type="button" onClick={() => setNewProfile(true)}>
            Novo perfil fiscal
          </button>
        </div>
      </div>
      <div className="filters card">
        <Field label="Buscar (nome, código ou código de barras)">
          <input
            value={q}
            onChange={(e) => {
              setPage(1);
              setQ(e.target.value);
            }}
          />
        </Field>
      </div>
      <ErrorBanner error={list.error} />
      <table className="grid">
        <thead>
          <tr>
            <th>Código</th>
            <th>Código de barras</th>
            <th>Descrição</th>
            <th>NCM</th>
            <th>Un</th>
            <th className="num">Preço</th>
            <th>Perfil fiscal</th>
            <th>Ativo</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((p) => (
            <tr key={p.id} className="clickable" onClick={() => setEditing(p)}>
              <td>{p.cProd}</td>
              <td className="mono">{p.cEAN ?? '—'}</td>
              <td>{p.xProd}</td>
              <td>{p.NCM}</td>
              <td>{p.uCom}</td>
              <td className="num">{brlText(p.vUnCom)}</td>
              <td>{profileName(p.fiscalProfileId)}</td>
              <td>{p.ativo ? 'Sim' : 'Não'}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={8}>
            Nenhum produto. Cadastre um perfil fiscal e depois os produtos.
          </EmptyRow>
        </tbody>
      </table>
      {list.data !== null ? (
        <Pager page={page} pageSize={PAGE_SIZE} total={list.data.meta.total} onPage={setPage} />
      ) : null}
      <FiscalProfilesCard profiles={profiles.data} onChanged={() => void profiles.reload()} />
      {editing !== null ? (
        <ProductDialog
          product={editing === 'new' ? null : editing}
          profiles={profiles.data ?? []}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      ) : null}
      {newProfile ? (
        <ProfileDialog
          onClose={() => setNewProfile(false)}
          onSaved={() => {
            setNewProfile(false);
            void profiles.reload();
          }}
        />
      ) : null}
    </div>
  );
}

function ProductDialog(props: {
  product: ProductView | null;
  profiles: { id: string; name: string }[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const { api } = useApp();
  const p = props.product;
  const [form, setForm] = useState({
    cProd: p?.cProd ?? '',
    cEAN: p?.cEAN ?? '',
    xProd: p?.xProd ?? '',
    NCM: p?.NCM ?? '',
    CEST: p?.CEST ?? '',
    uCom: p?.uCom ?? 'UN',
    vUnCom: p === null ? '' : p.vUnCom.replace(/(\.\d\d\d*?)0+$/, '$1').replace('.', ','),
    fiscalProfileId: p?.fiscalProfileId ?? props.profiles[0]?.id ?? '',
    ativo: p?.ativo ?? true,
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const f = action.fields;
  const submit = async () => {
    const body: Record<string, unknown> = {
      cProd: form.cProd,
      xProd: form.xProd,
      NCM: form.NCM,
      uCom: form.uCom,
      vUnCom: parseBrDecimal(form.vUnCom) ?? form.vUnCom,
      ativo: form.ativo,
      ...(form.cEAN.trim() === '' ? {} : { cEAN: form.cEAN.trim() }),
      ...(form.CEST.trim() === '' ? {} : { CEST: form.CEST.trim() }),
      ...(form.fiscalProfileId === '' ? {} : { fiscalProfileId: form.fiscalProfileId }),
    };
    const saved = await action.run(() =>
      p === null ? api.products.create(body) : api.products.update(p.id, body),
    );
    if (saved !== undefined) props.onSaved();
  };
  const fields = ['cProd', 'cEAN', 'xProd', 'NCM', 'CEST', 'uCom', 'vUnCom', 'fiscalProfileId'];
  return (
    <Modal title={p === null ? 'Novo produto' : `Produto ${p.cProd}`} onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="form-grid">
          <Field label="Código" error={f['cProd']}>
            <input value={form.cProd} onChange={set('cProd')} />
          </Field>
          <Field label="Código de barras (GTIN)" error={f['cEAN']}>
            <input value={form.cEAN} onChange={set('cEAN')} inputMode="numeric" />
          </Field>
          <Field label="Descrição" error={f['xProd']} wide>
            <input value={form.xProd} onChange={set('xProd')} />
          </Field>
          <Field label="NCM" error={f['NCM']}>
            <input value={form.NCM} onChange={set('NCM')} inputMode="numeric" />
          </Field>
          <Field label="CEST" error={f['CEST']}>
            <input value={form.CEST} onChange={set('CEST')} inputMode="numeric" />
          </Field>
          <Field label="Unidade" error={f['uCom']}>
            <input value={form.uCom} onChange={set('uCom')} />
          </Field>
          <Field label="Preço (R$)" error={f['vUnCom']}>
            <input value={form.vUnCom} onChange={set('vUnCom')} inputMode="decimal" />
          </Field>
          <Field label="Perfil fiscal" error={f['fiscalProfileId']}>
            <select value={form.fiscalProfileId} onChange={set('fiscalProfileId')}>
              <option value="">(nenhum: usa o perfil padrão da empresa)</option>
              {props.profiles.map((pr) => (
                <option key={pr.id} value={pr.id}>
                  {pr.name}
                </option>
              ))}
            </select>
          </Field>
          <ActiveField value={form.ativo} onChange={(ativo) => setForm({ ...form, ativo })} />
        </div>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, fields)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Salvar
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

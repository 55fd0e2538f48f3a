// The catalogue the cashier sells from: products (code, barcode, NCM, price, fiscal profile) and the
// fiscal profiles that say how they are taxed (simple mode of /v1/fiscal-profiles).
import { useState } from 'react';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import { ErrorBanner, Field, Modal, Pager, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, parseBrDecimal } from '../format.ts';
import { otherDetails } from '../messages.ts';

const PAGE_SIZE = 20;

export function ProductsScreen() {
  const { api } = useApp();
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api.products.list({ page, pageSize: PAGE_SIZE, ...(q.trim() === '' ? {} : { q: q.trim() }) }),
    [api, page, q],
  );
  const profiles = useLoad(() => api.fiscalProfiles.list({ pageSize: 100 }).then((r) => r.items), [api]);
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
          {(list.data?.items ?? []).map((p) => (
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
          {list.data !== null && list.data.items.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                Nenhum produto. Cadastre um perfil fiscal e depois os produtos.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {list.data !== null ? (
        <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} />
      ) : null}
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
              <option value="">(nenhum)</option>
              {props.profiles.map((pr) => (
                <option key={pr.id} value={pr.id}>
                  {pr.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Situação">
            <select
              value={form.ativo ? '1' : '0'}
              onChange={(e) => setForm({ ...form, ativo: e.target.value === '1' })}
            >
              <option value="1">Ativo</option>
              <option value="0">Inativo</option>
            </select>
          </Field>
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

function ProfileDialog(props: { onClose: () => void; onSaved: () => void }) {
  const { api, company } = useApp();
  const simples = company.crt === 1 || company.crt === 4;
  const [form, setForm] = useState({
    name: '',
    CFOP: '5102',
    orig: '0',
    code: simples ? '102' : '00',
    pICMS: '',
    pisCst: simples ? '49' : '01',
    pPIS: '',
    cofinsCst: simples ? '49' : '01',
    pCOFINS: '',
    pTotTrib: '',
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const f = action.fields;
  const dec = (v: string) => parseBrDecimal(v) ?? v;
  const opt = (k: string, v: string) => (v.trim() === '' ? {} : { [k]: dec(v) });
  const submit = async () => {
    const body = {
      name: form.name,
      CFOP: form.CFOP,
      taxes: {
        ICMS: {
          orig: Number(form.orig),
          [simples ? 'CSOSN' : 'CST']: form.code,
          ...opt('pICMS', form.pICMS),
        },
        PIS: { CST: form.pisCst, ...opt('pPIS', form.pPIS) },
        COFINS: { CST: form.cofinsCst, ...opt('pCOFINS', form.pCOFINS) },
        ...opt('pTotTrib', form.pTotTrib),
      },
    };
    const saved = await action.run(() => api.fiscalProfiles.create(body));
    if (saved !== undefined) props.onSaved();
  };
  const icmsField = `taxes.ICMS.${simples ? 'CSOSN' : 'CST'}`;
  return (
    <Modal title="Novo perfil fiscal" onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="form-grid">
          <Field label="Nome" error={f['name']} wide>
            <input value={form.name} onChange={set('name')} />
          </Field>
          <Field label="CFOP" error={f['CFOP']}>
            <input value={form.CFOP} onChange={set('CFOP')} inputMode="numeric" />
          </Field>
          <Field label="Origem (0–8)" error={f['taxes.ICMS.orig']}>
            <input value={form.orig} onChange={set('orig')} inputMode="numeric" />
          </Field>
          <Field label={simples ? 'CSOSN' : 'CST ICMS'} error={f[icmsField]}>
            <input value={form.code} onChange={set('code')} inputMode="numeric" />
          </Field>
          <Field label="Alíquota ICMS (%)" error={f['taxes.ICMS.pICMS']}>
            <input value={form.pICMS} onChange={set('pICMS')} inputMode="decimal" />
          </Field>
          <Field label="CST PIS" error={f['taxes.PIS.CST']}>
            <input value={form.pisCst} onChange={set('pisCst')} inputMode="numeric" />
          </Field>
          <Field label="Alíquota PIS (%)" error={f['taxes.PIS.pPIS']}>
            <input value={form.pPIS} onChange={set('pPIS')} inputMode="decimal" />
          </Field>
          <Field label="CST COFINS" error={f['taxes.COFINS.CST']}>
            <input value={form.cofinsCst} onChange={set('cofinsCst')} inputMode="numeric" />
          </Field>
          <Field label="Alíquota COFINS (%)" error={f['taxes.COFINS.pCOFINS']}>
            <input value={form.pCOFINS} onChange={set('pCOFINS')} inputMode="decimal" />
          </Field>
          <Field label="Carga tributária aprox. (%)" error={f['taxes.pTotTrib']} hint="Lei 12.741/2012">
            <input value={form.pTotTrib} onChange={set('pTotTrib')} inputMode="decimal" />
          </Field>
        </div>
        <ErrorBanner
          error={action.error}
          extra={otherDetails(action.error, [
            'name',
            'CFOP',
            'taxes.ICMS.orig',
            icmsField,
            'taxes.ICMS.pICMS',
            'taxes.PIS.CST',
            'taxes.PIS.pPIS',
            'taxes.COFINS.CST',
            'taxes.COFINS.pCOFINS',
            'taxes.pTotTrib',
          ])}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Salvar perfil
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

// The company's fiscal profiles (/v1/fiscal-profiles): which one is the default that taxes items naming none
// (simple mode), choosing another default (PUT /v1/companies/:id/config), and creating or editing a profile.
import { useState } from 'react';
import type { FiscalProfileView, FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { EmptyRow, ErrorBanner, Field, Modal, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { parseBrDecimal } from '../format.ts';
import { otherDetails } from '../messages.ts';

const pct = (rate: string | undefined) => (rate === undefined ? '' : ` ${rate.replace('.', ',')} %`);

function icmsText(t: FiscalTaxes): string {
  const code = t.ICMS.CSOSN !== undefined ? `CSOSN ${t.ICMS.CSOSN}` : `CST ${t.ICMS.CST ?? '?'}`;
  return code + pct(t.ICMS.pICMS);
}

export function FiscalProfilesCard(props: { profiles: FiscalProfileView[] | null; onChanged: () => void }) {
  const { api, company, refreshCompany } = useApp();
  const [editing, setEditing] = useState<FiscalProfileView | null>(null);
  const action = useAction();
  const defaultId = company.defaultFiscalProfileId;
  const makeDefault = async (profile: FiscalProfileView) => {
    const done = await action.run(() =>
      api.companies.config(company.id, { defaultFiscalProfileId: profile.id }),
    );
    if (done !== undefined) await refreshCompany();
  };
  return (
    <section className="card" aria-label="Perfis fiscais">
      <h2>Perfis fiscais</h2>
      <p className="muted">
        O perfil <strong>padrão</strong> tributa os itens que não indicam perfil nem tributação (modo
        simples). Ele foi criado com a empresa a partir do regime tributário; revise-o e ajuste-o ao que a
        empresa vende.
      </p>
      <ErrorBanner error={action.error} />
      <table className="grid">
        <thead>
          <tr>
            <th>Nome</th>
            <th>CFOP</th>
            <th>ICMS</th>
            <th>PIS / COFINS</th>
            <th>IBS/CBS</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(props.profiles ?? []).map((p) => (
            <tr key={p.id} data-profile-id={p.id}>
              <td>
                {p.name}
                {p.id === defaultId ? (
                  <>
                    {' '}
                    <span className="badge badge-autorizada">Padrão</span>
                  </>
                ) : null}
              </td>
              <td>{p.CFOP}</td>
              <td>{icmsText(p.taxes)}</td>
              <td>
                {p.taxes.PIS.CST}
                {pct(p.taxes.PIS.pPIS)} / {p.taxes.COFINS.CST}
                {pct(p.taxes.COFINS.pCOFINS)}
              </td>
              <td>{p.taxes.IBSCBS === undefined ? '—' : `CST ${p.taxes.IBSCBS.CST}`}</td>
              <td className="actions">
                <button type="button" onClick={() => setEditing(p)}>
                  Editar
                </button>
                {p.id === defaultId ? null : (
                  <button type="button" disabled={action.pending} onClick={() => void makeDefault(p)}>
                    Tornar padrão
                  </button>
                )}
              </td>
            </tr>
          ))}
          <EmptyRow rows={props.profiles} colSpan={6}>
            Nenhum perfil fiscal.
          </EmptyRow>
        </tbody>
      </table>
      {editing !== null ? (
        <ProfileDialog
          profile={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            props.onChanged();
          }}
        />
      ) : null}
    </section>
  );
}

/** Creates a profile, or edits one: groups the form does not show (IBS/CBS, IPI, ST, modBC...) are kept. */
export function ProfileDialog(props: {
  profile?: FiscalProfileView;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { api, company } = useApp();
  const p = props.profile;
  const simples = p === undefined ? company.crt === 1 || company.crt === 4 : p.taxes.ICMS.CSOSN !== undefined;
  const br = (rate: string | undefined) => (rate ?? '').replace('.', ',');
  const [form, setForm] = useState({
    name: p?.name ?? '',
    CFOP: p?.CFOP ?? '5102',
    orig: String(p?.taxes.ICMS.orig ?? 0),
    code: p === undefined ? (simples ? '102' : '00') : (p.taxes.ICMS.CSOSN ?? p.taxes.ICMS.CST ?? ''),
    pICMS: br(p?.taxes.ICMS.pICMS),
    pisCst: p?.taxes.PIS.CST ?? (simples ? '49' : '01'),
    pPIS: br(p?.taxes.PIS.pPIS),
    cofinsCst: p?.taxes.COFINS.CST ?? (simples ? '49' : '01'),
    pCOFINS: br(p?.taxes.COFINS.pCOFINS),
    pTotTrib: br(p?.taxes.pTotTrib),
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const f = action.fields;
  const dec = (v: string) => parseBrDecimal(v) ?? v;
  const opt = (k: string, v: string) => (v.trim() === '' ? {} : { [k]: dec(v) });
  const submit = async () => {
    // The fields this form owns are rewritten; what it does not show passes through unchanged.
    const { CST: _cst, CSOSN: _csosn, pICMS: _p, ...icmsRest } = p?.taxes.ICMS ?? { orig: 0 };
    const { pTotTrib: _t, ...taxesRest } = p?.taxes ?? {};
    const body = {
      name: form.name,
      CFOP: form.CFOP,
      taxes: {
        ...taxesRest,
        ICMS: {
          ...icmsRest,
          orig: Number(form.orig),
          [simples ? 'CSOSN' : 'CST']: form.code,
          ...opt('pICMS', form.pICMS),
        },
        PIS: { CST: form.pisCst, ...opt('pPIS', form.pPIS) },
        COFINS: { CST: form.cofinsCst, ...opt('pCOFINS', form.pCOFINS) },
        ...opt('pTotTrib', form.pTotTrib),
      },
    };
    const saved = await action.run(() =>
      p === undefined ? api.fiscalProfiles.create(body) : api.fiscalProfiles.update(p.id, body),
    );
    if (saved !== undefined) props.onSaved();
  };
  const icmsField = `taxes.ICMS.${simples ? 'CSOSN' : 'CST'}`;
  return (
    <Modal
      title={p === undefined ? 'Novo perfil fiscal' : `Perfil fiscal ${p.name}`}
      onClose={props.onClose}
      wide
    >
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

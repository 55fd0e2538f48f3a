// Registers a customer (POST /v1/customers): the NF-e recipient with its address; the API's field messages
// appear next to each field (`endereco.cMun`, `cnpj`...).
import { useState, type ReactNode } from 'react';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import { normalizeCnpj, normalizeCpf } from '../../../src-shared/tax-ids.ts';
import { UFS } from '../../../src-shared/uf.ts';
import { ErrorBanner, Field, Modal, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { maskCnpjInput, maskCpfInput } from '../format.ts';
import { otherDetails } from '../messages.ts';

const ADDRESS_FIELDS = ['xLgr', 'nro', 'xCpl', 'xBairro', 'cMun', 'uf', 'cep'] as const;

/**
 * The "+ Novo cliente" of a document's customer picker: the dialog is rendered by the form's page, outside
 * its <form> (see CustomerPicker), and the customer it saves becomes the document's through `choose`.
 */
export function useNewCustomer(choose: (c: CustomerView) => void): { open: () => void; dialog: ReactNode } {
  const [shown, setShown] = useState(false);
  const dialog = shown ? (
    <CustomerFormDialog
      onClose={() => setShown(false)}
      onCreated={(c) => {
        choose(c);
        setShown(false);
      }}
    />
  ) : null;
  return { open: () => setShown(true), dialog };
}

export function CustomerFormDialog(props: { onClose: () => void; onCreated: (c: CustomerView) => void }) {
  const { api } = useApp();
  const [kind, setKind] = useState<'cnpj' | 'cpf'>('cnpj');
  const [form, setForm] = useState({
    doc: '',
    xNome: '',
    ie: '',
    indIEDest: '9',
    email: '',
    fone: '',
    xLgr: '',
    nro: '',
    xCpl: '',
    xBairro: '',
    cMun: '',
    uf: 'SP',
    cep: '',
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const f = action.fields;
  const submit = async () => {
    const opt = (v: string) => (v.trim() === '' ? undefined : v.trim());
    const body: Record<string, unknown> = {
      [kind]: kind === 'cnpj' ? normalizeCnpj(form.doc) : normalizeCpf(form.doc),
      xNome: form.xNome,
      indIEDest: Number(form.indIEDest),
      ...(opt(form.ie) === undefined ? {} : { ie: opt(form.ie) }),
      ...(opt(form.email) === undefined ? {} : { email: opt(form.email) }),
      ...(opt(form.fone) === undefined ? {} : { fone: opt(form.fone) }),
      endereco: Object.fromEntries(
        ADDRESS_FIELDS.map((k) => [k, opt(form[k])]).filter(([, v]) => v !== undefined),
      ),
    };
    const created = await action.run(() => api.customers.create(body));
    if (created !== undefined) props.onCreated(created);
  };
  return (
    <Modal title="Novo cliente" onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="form-grid">
          <Field label="Tipo">
            <select value={kind} onChange={(e) => setKind(e.target.value as 'cnpj' | 'cpf')}>
              <option value="cnpj">Pessoa jurídica (CNPJ)</option>
              <option value="cpf">Pessoa física (CPF)</option>
            </select>
          </Field>
          <Field label={kind === 'cnpj' ? 'CNPJ' : 'CPF'} error={f[kind]}>
            <input
              value={form.doc}
              onChange={(e) =>
                setForm({
                  ...form,
                  doc: kind === 'cnpj' ? maskCnpjInput(e.target.value) : maskCpfInput(e.target.value),
                })
              }
            />
          </Field>
          <Field label="Nome / razão social" error={f['xNome']} wide>
            <input value={form.xNome} onChange={set('xNome')} />
          </Field>
          <Field label="Indicador de IE" error={f['indIEDest']}>
            <select value={form.indIEDest} onChange={set('indIEDest')}>
              <option value="1">1 – Contribuinte</option>
              <option value="2">2 – Isento</option>
              <option value="9">9 – Não contribuinte</option>
            </select>
          </Field>
          <Field label="Inscrição estadual" error={f['ie']}>
            <input value={form.ie} onChange={set('ie')} />
          </Field>
          <Field label="E-mail" error={f['email']}>
            <input value={form.email} onChange={set('email')} type="email" />
          </Field>
          <Field label="Telefone" error={f['fone']}>
            <input value={form.fone} onChange={set('fone')} />
          </Field>
          <Field label="Logradouro" error={f['endereco.xLgr']} wide>
            <input value={form.xLgr} onChange={set('xLgr')} />
          </Field>
          <Field label="Número" error={f['endereco.nro']}>
            <input value={form.nro} onChange={set('nro')} />
          </Field>
          <Field label="Complemento" error={f['endereco.xCpl']}>
            <input value={form.xCpl} onChange={set('xCpl')} />
          </Field>
          <Field label="Bairro" error={f['endereco.xBairro']}>
            <input value={form.xBairro} onChange={set('xBairro')} />
          </Field>
          <Field
            label="Código IBGE do município"
            error={f['endereco.cMun']}
            hint="7 dígitos, ex.: 3550308 (São Paulo)"
          >
            <input value={form.cMun} onChange={set('cMun')} inputMode="numeric" />
          </Field>
          <Field label="UF" error={f['endereco.uf']}>
            <select value={form.uf} onChange={set('uf')}>
              {UFS.map((u) => (
                <option key={u.sigla} value={u.sigla}>
                  {u.sigla}
                </option>
              ))}
            </select>
          </Field>
          <Field label="CEP" error={f['endereco.cep']}>
            <input value={form.cep} onChange={set('cep')} inputMode="numeric" />
          </Field>
        </div>
        <ErrorBanner
          error={action.error}
          extra={otherDetails(action.error, [
            'cpf',
            'cnpj',
            'xNome',
            'ie',
            'indIEDest',
            'email',
            'fone',
            ...ADDRESS_FIELDS.map((k) => `endereco.${k}`),
          ])}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Cadastrar cliente
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

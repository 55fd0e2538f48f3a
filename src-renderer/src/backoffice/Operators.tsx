// Operadores: the people who sell, with their code, role and PIN. The owner creates them, changes a role or
// a PIN (a new PIN also unlocks), deactivates one who left (their history keeps the name) and unlocks one
// locked out by wrong PINs.
import { useState } from 'react';
import type { OperatorRole, OperatorView } from '../../../src-shared/contracts/api-client.ts';
import { OPERATOR_ROLES, ROLE_LABELS } from '../../../src-shared/tables/operator-roles.ts';
import {
  ActiveField,
  Banner,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { otherDetails } from '../messages.ts';

export function OperatorsScreen() {
  const { api } = useApp();
  const [showInactive, setShowInactive] = useState(false);
  const list = useLoad(
    () => api.operators.list(showInactive ? {} : { ativo: true }).then((r) => r.data),
    [api, showInactive],
  );
  const [editing, setEditing] = useState<OperatorView | 'new' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const locked = (o: OperatorView) => o.bloqueado_ate !== null && Date.parse(o.bloqueado_ate) > Date.now();

  return (
    <div className="page" data-testid="operators-page">
      <div className="page-head">
        <h1>Operadores</h1>
        <div className="actions">
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Novo operador
          </button>
          <label>
            <input
              type="checkbox"
              checked={showInactive}
              onChange={(e) => setShowInactive(e.target.checked)}
            />{' '}
            Mostrar inativos
          </label>
        </div>
      </div>
      <p className="muted">
        Cada pessoa entra no caixa com o seu código e PIN. Caixa dá desconto de até 5 % sem autorização;
        supervisor até 20 % e autoriza alteração de preço, remoção de item, cancelamento e reimpressão;
        gerente faz tudo.
      </p>
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={list.error ?? action.error} />
      <table className="grid" data-testid="operators-table">
        <thead>
          <tr>
            <th>Código</th>
            <th>Nome</th>
            <th>Papel</th>
            <th>Situação</th>
            <th>Atualizado em</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((o) => (
            <tr key={o.id} data-codigo={o.codigo}>
              <td>{o.codigo}</td>
              <td>{o.nome}</td>
              <td>{ROLE_LABELS[o.papel]}</td>
              <td>
                {!o.ativo ? 'Inativo' : locked(o) ? `Bloqueado até ${dateTimeBr(o.bloqueado_ate)}` : 'Ativo'}
              </td>
              <td>{dateTimeBr(o.updated_at)}</td>
              <td className="actions">
                <button type="button" className="small" onClick={() => setEditing(o)}>
                  Editar
                </button>
                {o.ativo ? (
                  <button
                    type="button"
                    className="small"
                    disabled={action.pending}
                    onClick={() =>
                      void action
                        .run(() => api.operators.deactivate(o.id))
                        .then(() => {
                          setNotice(`${o.nome} desativado.`);
                          void list.reload();
                        })
                    }
                  >
                    Desativar
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
          <EmptyRow rows={list.data} colSpan={6}>
            Nenhum operador. Cadastre o primeiro para que o caixa peça código e PIN.
          </EmptyRow>
        </tbody>
      </table>
      {editing !== null ? (
        <OperatorDialog
          operator={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(text) => {
            setEditing(null);
            setNotice(text);
            void list.reload();
          }}
        />
      ) : null}
    </div>
  );
}

function OperatorDialog(props: {
  operator: OperatorView | null;
  onClose: () => void;
  onSaved: (notice: string) => void;
}) {
  const { api } = useApp();
  const o = props.operator;
  const [form, setForm] = useState({
    nome: o?.nome ?? '',
    papel: (o?.papel ?? 'caixa') as OperatorRole,
    codigo: o?.codigo ?? '',
    pin: '',
    ativo: o?.ativo ?? true,
  });
  const action = useAction();
  const f = action.fields;
  const isLocked = o !== null && o.bloqueado_ate !== null && Date.parse(o.bloqueado_ate) > Date.now();
  const submit = async () => {
    const saved = await action.run(() =>
      o === null
        ? api.operators.create({
            nome: form.nome,
            papel: form.papel,
            pin: form.pin,
            ...(form.codigo.trim() === '' ? {} : { codigo: form.codigo.trim() }),
          })
        : api.operators.update(o.id, {
            nome: form.nome,
            papel: form.papel,
            ativo: form.ativo,
            ...(form.pin === '' ? {} : { pin: form.pin }),
          }),
    );
    if (saved !== undefined)
      props.onSaved(
        o === null
          ? `Operador ${saved.codigo} · ${saved.nome} cadastrado.`
          : `Operador ${saved.codigo} · ${saved.nome} atualizado${form.pin !== '' && isLocked ? ' e desbloqueado' : ''}.`,
      );
  };
  return (
    <Modal title={o === null ? 'Novo operador' : `Operador ${o.codigo}`} onClose={props.onClose}>
      <form
        data-testid="operator-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Field label="Nome" error={f['nome']}>
          <input
            value={form.nome}
            onChange={(e) => setForm({ ...form, nome: e.target.value })}
            aria-label="Nome"
          />
        </Field>
        <Field label="Papel" error={f['papel']}>
          <select
            value={form.papel}
            aria-label="Papel"
            onChange={(e) => setForm({ ...form, papel: e.target.value as OperatorRole })}
          >
            {OPERATOR_ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </Field>
        {o === null ? (
          <Field label="Código (vazio: o próximo livre)" error={f['codigo']}>
            <input
              value={form.codigo}
              inputMode="numeric"
              aria-label="Código"
              onChange={(e) => setForm({ ...form, codigo: e.target.value.replace(/\D/g, '').slice(0, 6) })}
            />
          </Field>
        ) : null}
        <Field
          label={o === null ? 'PIN (4 a 8 dígitos)' : 'Novo PIN (vazio: mantém o atual)'}
          error={f['pin']}
          hint={isLocked ? 'Um novo PIN também desbloqueia o operador.' : 'Evite 1234 ou dígitos repetidos.'}
        >
          <input
            type="password"
            value={form.pin}
            inputMode="numeric"
            autoComplete="new-password"
            aria-label="PIN"
            onChange={(e) => setForm({ ...form, pin: e.target.value.replace(/\D/g, '').slice(0, 8) })}
          />
        </Field>
        {o !== null ? (
          <ActiveField
            value={form.ativo}
            onChange={(ativo) => setForm({ ...form, ativo })}
            error={f['ativo']}
          />
        ) : null}
        <ErrorBanner
          error={action.error}
          extra={otherDetails(action.error, ['nome', 'papel', 'codigo', 'pin', 'ativo'])}
        />
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

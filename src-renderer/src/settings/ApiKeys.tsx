// API keys of the organization (/v1/api-keys): create (the secret is shown once), rotate with a grace
// period for the old key, revoke at once.
import { useState } from 'react';
import type { ApiKeyCreated, ApiKeyView } from '../../../src-shared/contracts/api-keys.ts';
import { Banner, ErrorBanner, Field, Modal, StatusBadge, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { otherDetails } from '../messages.ts';

const PLAN_PT: Readonly<Record<string, string>> = {
  basic: 'básico (5/s, 120/min)',
  standard: 'padrão (20/s, 1200/min)',
  terminal: 'terminal (50/s, 3000/min)',
};

function keyState(k: ApiKeyView): { status: string; label: string } {
  if (k.revokedAt !== null) return { status: 'cancelada', label: 'Revogada' };
  if (k.expiresAt !== null && new Date(k.expiresAt).getTime() <= Date.now())
    return { status: 'erro', label: 'Expirada' };
  if (k.replacedBy !== null) return { status: 'processando', label: 'Em carência (rotacionada)' };
  return { status: 'autorizada', label: 'Ativa' };
}

export function ApiKeysSection() {
  const { api, companies } = useApp();
  const keys = useLoad(() => api.apiKeys.list({ pageSize: 100 }).then((r) => r.items), [api]);
  const [creating, setCreating] = useState(false);
  const [rotating, setRotating] = useState<ApiKeyView | null>(null);
  const [secret, setSecret] = useState<ApiKeyCreated | null>(null);
  const action = useAction();
  const companyName = (id: string | null) =>
    id === null ? 'todas da organização' : (companies.find((c) => c.id === id)?.xFant ?? id);

  const revoke = async (k: ApiKeyView) => {
    if (!window.confirm(`Revogar a chave “${k.name}”? Ela para de funcionar imediatamente.`)) return;
    await action.run(() => api.apiKeys.revoke(k.id));
    void keys.reload();
  };

  return (
    <>
      <div className="page-head">
        <h1>Chaves de API</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Nova chave
        </button>
      </div>
      <p className="muted">
        Outros sistemas (PDV, ERP) usam estas chaves no cabeçalho <code>X-API-Key</code>. O segredo só é
        mostrado na criação e na rotação.
      </p>
      {secret !== null ? <SecretBox created={secret} onDismiss={() => setSecret(null)} /> : null}
      <ErrorBanner error={action.error ?? keys.error} />
      <table className="grid" data-testid="api-keys">
        <thead>
          <tr>
            <th>Nome</th>
            <th>Prefixo</th>
            <th>Alcance</th>
            <th>Plano</th>
            <th>Situação</th>
            <th>Último uso</th>
            <th>Ações</th>
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => {
            const state = keyState(k);
            const active = k.revokedAt === null && state.status !== 'erro';
            return (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td className="mono small">{k.prefix}…</td>
                <td>{k.scope === 'organization' ? 'Organização' : `Empresa: ${companyName(k.companyId)}`}</td>
                <td>{PLAN_PT[k.plan] ?? k.plan}</td>
                <td>
                  <StatusBadge status={state.status} label={state.label} />
                  {k.expiresAt !== null ? (
                    <div className="small muted">até {dateTimeBr(k.expiresAt)}</div>
                  ) : null}
                </td>
                <td>{dateTimeBr(k.lastUsedAt)}</td>
                <td className="actions">
                  {active && k.replacedBy === null ? (
                    <button type="button" className="small" onClick={() => setRotating(k)}>
                      Rotacionar
                    </button>
                  ) : null}
                  {k.revokedAt === null ? (
                    <button type="button" className="small danger" onClick={() => void revoke(k)}>
                      Revogar
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {creating ? (
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={(k) => {
            setCreating(false);
            setSecret(k);
            void keys.reload();
          }}
        />
      ) : null}
      {rotating !== null ? (
        <RotateKeyDialog
          apiKey={rotating}
          onClose={() => setRotating(null)}
          onRotated={(k) => {
            setRotating(null);
            setSecret(k);
            void keys.reload();
          }}
        />
      ) : null}
    </>
  );
}

function SecretBox(props: { created: ApiKeyCreated; onDismiss: () => void }) {
  return (
    <Banner kind="warn" testId="api-key-secret">
      <strong>Copie agora a chave “{props.created.name}”: ela não será mostrada de novo.</strong>
      <code className="secret">{props.created.key}</code>
      <button
        type="button"
        className="small"
        onClick={() => void navigator.clipboard?.writeText(props.created.key)}
      >
        Copiar
      </button>{' '}
      <button type="button" className="small" onClick={props.onDismiss}>
        Já guardei
      </button>
    </Banner>
  );
}

function CreateKeyDialog(props: { onClose: () => void; onCreated: (k: ApiKeyCreated) => void }) {
  const { api, company } = useApp();
  const [form, setForm] = useState({ name: '', scope: 'company', plan: 'standard', expiresAt: '' });
  const action = useAction();
  const f = action.fields;
  return (
    <Modal title="Nova chave de API" onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() =>
              api.apiKeys.create({
                name: form.name,
                scope: form.scope as 'company' | 'organization',
                plan: form.plan as 'basic' | 'standard' | 'terminal',
                ...(form.scope === 'company' ? { companyId: company.id } : {}),
                ...(form.expiresAt === ''
                  ? {}
                  : { expiresAt: new Date(`${form.expiresAt}T23:59:59`).toISOString() }),
              }),
            )
            .then((k) => k !== undefined && props.onCreated(k));
        }}
      >
        <Field label="Nome (onde será usada)" error={f['name']}>
          <input
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            aria-label="Nome da chave"
          />
        </Field>
        <Field label="Alcance" error={f['scope'] ?? f['companyId']}>
          <select value={form.scope} onChange={(e) => setForm({ ...form, scope: e.target.value })}>
            <option value="company">Só esta empresa ({company.xFant ?? company.xNome})</option>
            <option value="organization">Todas as empresas da organização</option>
          </select>
        </Field>
        <Field label="Plano (limite de requisições)" error={f['plan']}>
          <select value={form.plan} onChange={(e) => setForm({ ...form, plan: e.target.value })}>
            {Object.entries(PLAN_PT).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Expira em (opcional)" error={f['expiresAt']}>
          <input
            type="date"
            value={form.expiresAt}
            onChange={(e) => setForm({ ...form, expiresAt: e.target.value })}
          />
        </Field>
        <ErrorBanner
          error={action.error}
          extra={otherDetails(action.error, ['name', 'scope', 'companyId', 'plan', 'expiresAt'])}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Criar chave
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

function RotateKeyDialog(props: {
  apiKey: ApiKeyView;
  onClose: () => void;
  onRotated: (k: ApiKeyCreated) => void;
}) {
  const { api } = useApp();
  const [hours, setHours] = useState('24');
  const action = useAction();
  return (
    <Modal title={`Rotacionar “${props.apiKey.name}”`} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() => api.apiKeys.rotate(props.apiKey.id, Math.round(Number(hours) * 3600)))
            .then((k) => k !== undefined && props.onRotated(k));
        }}
      >
        <p>
          Uma nova chave é criada; a atual continua valendo durante a carência, para dar tempo de trocar nos
          sistemas.
        </p>
        <Field label="Carência da chave atual (horas, até 720)" error={action.fields['graceSeconds']}>
          <input value={hours} onChange={(e) => setHours(e.target.value)} inputMode="numeric" />
        </Field>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, ['graceSeconds'])} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Rotacionar
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

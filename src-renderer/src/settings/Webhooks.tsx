// Webhooks (/v1/webhooks): subscriptions to fiscal events, their signing secret (shown once), a ping, the
// delivery history with each attempt, and redelivery.
import { useState } from 'react';
import {
  WEBHOOK_EVENTS,
  WEBHOOK_WILDCARDS,
  type DeliveryView,
  type WebhookEventPattern,
  type WebhookView,
  type WebhookWithSecret,
} from '../../../src-shared/contracts/webhooks.ts';
import {
  Banner,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  Pager,
  StatusBadge,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { otherDetails } from '../messages.ts';

const DELIVERY_PT: Readonly<Record<string, string>> = {
  pending: 'Pendente',
  in_flight: 'Enviando',
  delivered: 'Entregue',
  failed: 'Falhou',
};

export function WebhooksSection() {
  const { api } = useApp();
  const hooks = useLoad(() => api.webhooks.list({ limit: 100 }).then((r) => r.data), [api]);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<WebhookWithSecret | null>(null);
  const [history, setHistory] = useState<WebhookView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();

  const toggle = async (w: WebhookView) => {
    await action.run(() => api.webhooks.update(w.id, { ativo: !w.ativo }));
    void hooks.reload();
  };
  const ping = async (w: WebhookView) => {
    const r = await action.run(() => api.webhooks.testConnection(w.id));
    if (r !== undefined) setNotice('Ping enfileirado: acompanhe no histórico de entregas.');
  };
  const rotate = async (w: WebhookView) => {
    if (!window.confirm('Gerar um novo segredo? O receptor precisa passar a usar o novo segredo.')) return;
    const r = await action.run(() => api.webhooks.rotateSecret(w.id));
    if (r !== undefined) setSecret(r);
  };
  const remove = async (w: WebhookView) => {
    if (!window.confirm(`Excluir o webhook ${w.url}?`)) return;
    await action.run(() => api.webhooks.remove(w.id));
    void hooks.reload();
  };

  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Novo webhook
        </button>
      </div>
      <p className="muted">
        Cada evento é enviado assinado com HMAC-SHA256 (os cabeçalhos estão descritos na Ajuda) e reenviado
        por até 24 horas enquanto o receptor não confirmar o recebimento.
      </p>
      {secret !== null ? (
        <Banner kind="warn" testId="webhook-secret">
          <strong>Copie agora o segredo de assinatura: ele não será mostrado de novo.</strong>
          <code className="secret">{secret.secret}</code>
          <button type="button" className="small" onClick={() => setSecret(null)}>
            Já guardei
          </button>
        </Banner>
      ) : null}
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={action.error ?? hooks.error} />
      <table className="grid" data-testid="webhooks">
        <thead>
          <tr>
            <th>URL</th>
            <th>Eventos</th>
            <th>Situação</th>
            <th>Ações</th>
          </tr>
        </thead>
        <tbody>
          {(hooks.data ?? []).map((w) => (
            <tr key={w.id}>
              <td>
                <span className="mono small">{w.url}</span>
                {w.descricao !== null ? <div className="muted small">{w.descricao}</div> : null}
              </td>
              <td className="small">{w.eventos.join(', ')}</td>
              <td>
                <StatusBadge
                  status={w.ativo ? 'autorizada' : 'cancelada'}
                  label={w.ativo ? 'Ativo' : 'Pausado'}
                />
              </td>
              <td className="actions">
                <button type="button" className="small" onClick={() => setHistory(w)}>
                  Entregas
                </button>
                <button type="button" className="small" onClick={() => void ping(w)}>
                  Testar
                </button>
                <button type="button" className="small" onClick={() => void toggle(w)}>
                  {w.ativo ? 'Pausar' : 'Ativar'}
                </button>
                <button type="button" className="small" onClick={() => void rotate(w)}>
                  Novo segredo
                </button>
                <button type="button" className="small ghost" onClick={() => void remove(w)}>
                  Excluir
                </button>
              </td>
            </tr>
          ))}
          <EmptyRow rows={hooks.data} colSpan={4}>
            Nenhum webhook cadastrado.
          </EmptyRow>
        </tbody>
      </table>
      {creating ? (
        <CreateWebhookDialog
          onClose={() => setCreating(false)}
          onCreated={(w) => {
            setCreating(false);
            setSecret(w);
            void hooks.reload();
          }}
        />
      ) : null}
      {history !== null ? <DeliveriesDialog webhook={history} onClose={() => setHistory(null)} /> : null}
    </>
  );
}

function CreateWebhookDialog(props: { onClose: () => void; onCreated: (w: WebhookWithSecret) => void }) {
  const { api } = useApp();
  const [url, setUrl] = useState('');
  const [descricao, setDescricao] = useState('');
  const [local, setLocal] = useState(false);
  const [events, setEvents] = useState<WebhookEventPattern[]>(['nfe.*', 'nfce.*']);
  const action = useAction();
  const f = action.fields;
  const choices: WebhookEventPattern[] = [
    ...WEBHOOK_WILDCARDS,
    ...WEBHOOK_EVENTS.filter((e) => e !== 'ping'),
  ];
  return (
    <Modal title="Novo webhook" onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() =>
              api.webhooks.create({
                url,
                eventos: events,
                permitirRedeLocal: local,
                ...(descricao.trim() === '' ? {} : { descricao: descricao.trim() }),
              }),
            )
            .then((w) => w !== undefined && props.onCreated(w));
        }}
      >
        <Field label="URL do receptor (https)" error={f['url']}>
          <input
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://erp.exemplo.com.br/balcao"
            aria-label="URL do webhook"
          />
        </Field>
        <Field label="Descrição" error={f['descricao']}>
          <input value={descricao} onChange={(e) => setDescricao(e.target.value)} />
        </Field>
        <fieldset className="checks">
          <legend>Eventos</legend>
          {choices.map((ev) => (
            <label key={ev} className="check">
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) =>
                  setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))
                }
              />{' '}
              <code>{ev}</code>
            </label>
          ))}
        </fieldset>
        {f['eventos'] !== undefined ? <p className="field-error">{f['eventos']}</p> : null}
        <label className="check">
          <input type="checkbox" checked={local} onChange={(e) => setLocal(e.target.checked)} /> Permitir
          http:// e endereços da rede local (receptor na loja)
        </label>
        <ErrorBanner
          error={action.error}
          extra={otherDetails(action.error, ['url', 'descricao', 'events'])}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Criar webhook
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

function DeliveriesDialog(props: { webhook: WebhookView; onClose: () => void }) {
  const { api } = useApp();
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api.webhooks.deliveries(props.webhook.id, { page, limit: 10 }),
    [api, props.webhook.id, page],
  );
  const [open, setOpen] = useState<DeliveryView | null>(null);
  const detail = useLoad(
    () => (open === null ? Promise.resolve(null) : api.webhooks.delivery(props.webhook.id, open.id)),
    [api, props.webhook.id, open],
  );
  const action = useAction();
  const redeliver = async (d: DeliveryView) => {
    const r = await action.run(() => api.webhooks.redeliver(props.webhook.id, d.id));
    if (r !== undefined) void list.reload();
  };
  return (
    <Modal title={`Entregas · ${props.webhook.url}`} onClose={props.onClose} wide>
      <div className="actions">
        <button type="button" className="small" onClick={() => void list.reload()}>
          Atualizar
        </button>
      </div>
      <ErrorBanner error={action.error ?? list.error} />
      <table className="grid" data-testid="deliveries">
        <thead>
          <tr>
            <th>Criada</th>
            <th>Evento</th>
            <th>Situação</th>
            <th className="num">Tentativas</th>
            <th>Última resposta</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((d) => (
            <tr key={d.id} className={open?.id === d.id ? 'selected' : ''}>
              <td>{dateTimeBr(d.createdAt)}</td>
              <td>
                <code>{d.event}</code>
                {d.redeliveryOf !== null ? <span className="tag">reenvio</span> : null}
              </td>
              <td>
                <StatusBadge status={d.status} label={DELIVERY_PT[d.status] ?? d.status} />
              </td>
              <td className="num">{d.attempts}</td>
              <td className="small">
                {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? '—')}
              </td>
              <td className="actions">
                <button type="button" className="small" onClick={() => setOpen(open?.id === d.id ? null : d)}>
                  Detalhes
                </button>
                <button type="button" className="small" onClick={() => void redeliver(d)}>
                  Reenviar
                </button>
              </td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={6}>
            Nenhuma entrega ainda.
          </EmptyRow>
        </tbody>
      </table>
      {list.data !== null ? (
        <Pager page={page} pageSize={10} total={list.data.meta.total} onPage={setPage} />
      ) : null}
      {detail.data !== null ? (
        <section className="card">
          <h3>Tentativas</h3>
          <ul>
            {detail.data.attemptLog.map((a) => (
              <li key={a.attempt}>
                #{a.attempt} · {dateTimeBr(a.startedAt)} ·{' '}
                {a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'sem resposta')}
                {a.durationMs !== null ? ` · ${a.durationMs} ms` : ''}
              </li>
            ))}
          </ul>
          <h3>Corpo enviado</h3>
          <pre className="payload">{detail.data.payload}</pre>
        </section>
      ) : null}
    </Modal>
  );
}

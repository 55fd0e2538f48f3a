// One CT-e: identification, route, parties, the authority's answer and events, with only the actions its
// state allows (send, delete a draft, cancel, CC-e, DACTE, XML) and the debug object for support.
import { useState } from 'react';
import type { CteDebug, CteView } from '../../../src-shared/contracts/cte-view.ts';
import { Banner, ErrorBanner, downloadText, newIdempotencyKey, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { accessKeyBr, brlText, dateTimeBr, taxIdBr } from '../format.ts';
import { errorMessage, otherDetails } from '../messages.ts';
import { navigate } from '../router.ts';
import { CteCceDialog } from './CteCceDialog.tsx';
import {
  DocumentHead,
  EventsTable,
  IdentificationRows,
  QueuedBanner,
  SendFailedBanner,
  answerText,
  reason,
  usePollWhile,
} from './document-detail-parts.tsx';
import { DeleteDraftDialog, JustifiedCancelDialog } from './document-dialogs.tsx';
import { routeText } from './CteList.tsx';
import { readCteContent, type CteContent } from './cte-xml.ts';

/** A CT-e may be cancelled within 168 h of its authorization (MOC CT-e 4.00; the state may allow less). */
const CANCEL_WINDOW_MS = 168 * 3600_000;

const TOMA_PT: Readonly<Record<string, string>> = {
  '0': 'Remetente',
  '1': 'Expedidor',
  '2': 'Recebedor',
  '3': 'Destinatário',
  '4': 'Outros',
};

const TP_EMIS: Readonly<Record<number, string>> = {
  1: 'Normal',
  7: 'Contingência SVC-RS',
  8: 'Contingência SVC-SP',
};

const EVENT_STATUS_PT: Readonly<Record<string, string>> = {
  processando: 'Processando',
  registrada: 'Registrado',
  rejeitada: 'Rejeitado',
};

const OPERATION_PT: Readonly<Record<string, string>> = {
  autorizacao: 'Autorização',
  evento: 'Evento',
  inutilizacao: 'Inutilização',
};

const QUEUE_STATE_PT: Readonly<Record<string, string>> = {
  pending: 'na fila',
  in_flight: 'transmitindo',
  done: 'concluído',
  failed: 'falhou',
  unknown: 'resultado incerto: consultando a SEFAZ',
};

type Dialog = 'cancel' | 'cce' | 'delete' | null;

/** `sendFailed`: the form saved the draft but its send was refused (the address says `?envio=falhou`). */
export function CteDetail(props: { id: string; sendFailed?: boolean }) {
  const { api } = useApp();
  const doc = useLoad(() => api.cte.get(props.id), [api, props.id]);
  // Components, carried keys and vehicle are not in the view: they are read from the CT-e itself.
  const content = useLoad(
    async () => readCteContent(await api.cte.xml(props.id), new DOMParser()),
    [api, props.id],
  );
  const [dialog, setDialog] = useState<Dialog>(null);
  const [debugOpen, setDebugOpen] = useState(false);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const d = doc.data;

  // Followed until it settles: on its way to the authority, or an event waiting for its answer.
  const settling =
    d !== null && (d.status === 'processando' || d.eventos.some((e) => e.status === 'processando'));
  usePollWhile(settling, 1500, () => void doc.reload());

  if (d === null)
    return (
      <div className="page">{doc.error !== null ? <ErrorBanner error={doc.error} /> : 'Carregando…'}</div>
    );

  const authorizedAt = d.authorized_at === null ? null : new Date(d.authorized_at).getTime();
  const cancelUntil = authorizedAt === null ? null : authorizedAt + CANCEL_WINDOW_MS;
  const canSend = d.status === 'rascunho' || d.status === 'erro';
  // Only a CT-e the authority never answered may go (a draft, or an error found before transmission): the
  // service refuses the others, so the button is not offered.
  const canDelete = d.status === 'rascunho' || (d.status === 'erro' && d.cStat === null);
  // A DACTE documents an authorized CT-e (cancelled ones keep theirs, marked).
  const hasDacte = d.protocolo !== null;
  const canCorrect = d.status === 'autorizada';
  const canCancel =
    d.status === 'autorizada' &&
    !d.eventos.some((e) => e.tpEvento === '110111' && e.status === 'processando');

  const send = async () => {
    setNotice(null);
    // Queued (202): the "na fila" banner and the polling follow it until the authority answers.
    await action.run(() => api.cte.send(d.id, newIdempotencyKey('cte-envio')));
    await doc.reload();
  };
  // An event is queued (202): the page follows it until the authority answers.
  const eventSent = (text: string) => {
    setDialog(null);
    setNotice(text);
    void doc.reload();
  };
  const downloadXml = async () => {
    const xml = await action.run(() => api.cte.xml(d.id));
    if (xml !== undefined)
      downloadText(`${d.chave_acesso}-${d.protocolo === null ? 'CTe' : 'cteProc'}.xml`, xml);
  };

  return (
    <div className="page" data-testid="cte-detail" data-status={d.status}>
      <DocumentHead
        back="/cte"
        backLabel="CT-e"
        name="CT-e"
        numero={d.numero}
        serie={d.serie}
        status={d.status}
      />
      <div className="actions" aria-label="Ações">
        {canSend ? (
          <button type="button" className="primary" onClick={() => void send()} disabled={action.pending}>
            {d.status === 'erro' ? 'Reenviar à SEFAZ' : 'Enviar à SEFAZ'}
          </button>
        ) : null}
        {canDelete ? (
          <button type="button" className="danger" onClick={() => setDialog('delete')}>
            Excluir
          </button>
        ) : null}
        {canCancel ? (
          <button type="button" className="danger" onClick={() => setDialog('cancel')}>
            Cancelar CT-e
          </button>
        ) : null}
        {canCorrect ? (
          <button type="button" onClick={() => setDialog('cce')}>
            Carta de correção
          </button>
        ) : null}
        {hasDacte ? (
          <>
            <a className="button" href={api.cte.dacteUrl(d.id)} target="_blank" rel="noreferrer">
              DACTE (PDF)
            </a>
            <a className="button" href={api.cte.dacteUrl(d.id, { download: true })} download>
              Baixar DACTE
            </a>
          </>
        ) : null}
        <button type="button" onClick={() => void downloadXml()}>
          Baixar XML
        </button>
        <button
          type="button"
          className="ghost"
          onClick={() => setDebugOpen((o) => !o)}
          aria-expanded={debugOpen}
        >
          {debugOpen ? 'Ocultar diagnóstico' : 'Diagnóstico (suporte)'}
        </button>
      </div>
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={action.error} extra={otherDetails(action.error, [])} />
      <SendFailedBanner
        show={props.sendFailed === true && d.status === 'rascunho' && action.error === null}
        saved="O CT-e foi salvo"
        send="o envio à SEFAZ"
        button="Enviar à SEFAZ"
      />
      {(d.status === 'erro' || d.status === 'denegada') && d.cStat !== null ? (
        <Banner kind="error" testId="rejection">
          {d.status === 'denegada' ? 'Denegado' : 'Rejeição'} {d.cStat}: {reason(d.xMotivo)}
        </Banner>
      ) : null}
      {d.tipo_emissao !== 1 ? (
        <Banner kind="warn" testId="contingency">
          Emitido em contingência{' '}
          {d.tipo_emissao === 7 ? 'SVC-RS' : d.tipo_emissao === 8 ? 'SVC-SP' : `(tpEmis ${d.tipo_emissao})`}:
          a SEFAZ do estado estava fora do ar; o CT-e vale como os demais e é consultado e cancelado no mesmo
          ambiente de contingência.
        </Banner>
      ) : null}
      <QueuedBanner show={d.status === 'processando'} authority="a SEFAZ" />

      <div className="two-col">
        <section className="card">
          <h2>Identificação</h2>
          <dl className="props">
            <IdentificationRows
              chave={d.chave_acesso}
              dateLabel="Criado em"
              date={d.created_at}
              ambiente={d.ambiente}
              tipoEmissao={TP_EMIS[d.tipo_emissao] ?? d.tipo_emissao}
              protocolo={d.protocolo}
              authorizedLabel="Autorizado em"
              authorizedAt={d.authorized_at}
              cStat={d.cStat}
              xMotivo={d.xMotivo}
              cancelUntil={canCancel ? cancelUntil : null}
            />
          </dl>
        </section>
        <section className="card">
          <h2>Prestação</h2>
          <dl className="props">
            <dt>Modal</dt>
            <dd>{d.modal === '01' ? '01 – Rodoviário' : d.modal}</dd>
            <dt>CFOP</dt>
            <dd>{d.cfop}</dd>
            <dt>Percurso</dt>
            <dd data-testid="cte-route">{routeText(d)}</dd>
            <dt>Tomador</dt>
            <dd>{TOMA_PT[d.toma] ?? d.toma}</dd>
            <dt>Valor da prestação</dt>
            <dd className="num strong" data-testid="cte-total">
              {brlText(d.valor_total)}
            </dd>
          </dl>
        </section>
      </div>
      <div className="two-col">
        <Party title="Remetente" party={d.remetente} />
        <Party title="Destinatário" party={d.destinatario} />
      </div>

      {content.data !== null ? <Carried content={content.data} /> : null}

      <EventsTable
        testId="cte-events"
        events={d.eventos.map((e) => ({
          id: e.id,
          tpEvento: e.tpEvento,
          descricao: e.descricao,
          sequencia: e.sequencia,
          // A registered event wears the green of an accepted answer (the stylesheet's `homologada`).
          badge: e.status === 'registrada' ? 'homologada' : e.status,
          label: EVENT_STATUS_PT[e.status] ?? e.status,
          retorno: answerText(e.cStat, e.xMotivo),
          protocolo: e.protocolo,
          at: e.registered_at ?? e.created_at,
        }))}
      />

      {debugOpen ? <DebugPanel id={d.id} /> : null}

      {dialog === 'cancel' ? (
        <CancelDialog
          cte={d}
          cancelUntil={cancelUntil}
          onClose={() => setDialog(null)}
          onDone={() => eventSent('Pedido de cancelamento enviado à SEFAZ.')}
        />
      ) : null}
      {dialog === 'cce' ? (
        <CteCceDialog
          cte={d}
          onClose={() => setDialog(null)}
          onDone={() => eventSent('Carta de correção enviada à SEFAZ.')}
        />
      ) : null}
      {dialog === 'delete' ? (
        <DeleteDialog cte={d} onClose={() => setDialog(null)} onDone={() => navigate('/cte')} />
      ) : null}
    </div>
  );
}

/** The freight components and the amount to receive, the carried NF-e, the vehicle and the observation. */
function Carried(props: { content: CteContent }) {
  const c = props.content;
  return (
    <div className="two-col">
      <section className="card">
        <h2>Componentes do valor</h2>
        <table className="grid" data-testid="cte-components-view">
          <tbody>
            {c.componentes.map((comp, i) => (
              <tr key={i}>
                <td>{comp.nome}</td>
                <td className="num">{brlText(comp.valor)}</td>
              </tr>
            ))}
            <tr>
              <td>
                <strong>Total da prestação</strong>
              </td>
              <td className="num">
                <strong>{brlText(c.vTPrest)}</strong>
              </td>
            </tr>
            {c.vRec !== null && c.vRec !== c.vTPrest ? (
              <tr>
                <td>Valor a receber</td>
                <td className="num">{brlText(c.vRec)}</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </section>
      <section className="card">
        <h2>Documentos e veículo</h2>
        <dl className="props">
          <dt>NF-e transportadas</dt>
          <dd className="mono small" data-testid="cte-keys">
            {c.chaves.length === 0 ? '—' : c.chaves.map((k) => <div key={k}>{accessKeyBr(k)}</div>)}
          </dd>
          <dt>Veículo</dt>
          <dd>
            {c.veiculo === null
              ? '—'
              : `${c.veiculo.placa}${c.veiculo.uf === null ? '' : ` / ${c.veiculo.uf}`}${c.veiculo.renavam === null ? '' : ` · RENAVAM ${c.veiculo.renavam}`}`}
          </dd>
          {c.observacoes !== null ? (
            <>
              <dt>Observações</dt>
              <dd>{c.observacoes}</dd>
            </>
          ) : null}
        </dl>
      </section>
    </div>
  );
}

function Party(props: { title: string; party: CteView['remetente'] }) {
  return (
    <section className="card">
      <h2>{props.title}</h2>
      <dl className="props">
        <dt>Nome</dt>
        <dd>{props.party.nome}</dd>
        <dt>CPF/CNPJ</dt>
        <dd>{taxIdBr(props.party.cpfCnpj)}</dd>
      </dl>
    </section>
  );
}

function CancelDialog(props: {
  cte: CteView;
  cancelUntil: number | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const { api } = useApp();
  return (
    <JustifiedCancelDialog
      title={`Cancelar CT-e nº ${props.cte.numero}`}
      submitLabel="Cancelar CT-e"
      cancel={(text) => api.cte.cancel(props.cte.id, text)}
      onClose={props.onClose}
      onDone={props.onDone}
    >
      <p className="muted">
        O cancelamento só é aceito antes do início da viagem
        {props.cancelUntil === null
          ? '.'
          : ` e até ${dateTimeBr(new Date(props.cancelUntil).toISOString())} (7 dias da autorização).`}
      </p>
    </JustifiedCancelDialog>
  );
}

function DeleteDialog(props: { cte: CteView; onClose: () => void; onDone: () => void }) {
  const { api } = useApp();
  return (
    <DeleteDraftDialog
      title={`Excluir CT-e nº ${props.cte.numero}`}
      remove={() => api.cte.remove(props.cte.id)}
      onClose={props.onClose}
      onDone={props.onDone}
    >
      <p>
        O rascunho sai da lista. O número {props.cte.numero} da série {props.cte.serie} continua usado:
        inutilize-o até o dia 10 do mês seguinte.
      </p>
    </DeleteDraftDialog>
  );
}

/** The debug object (§2.7) for support: queue log, XML as stored and sent, the rows. */
function DebugPanel(props: { id: string }) {
  const { api } = useApp();
  const debug = useLoad(() => api.cte.debug(props.id), [api, props.id]);
  const x: CteDebug | null = debug.data;
  return (
    <section className="card" data-testid="cte-debug">
      <h2>Diagnóstico</h2>
      {x === null ? (
        debug.error !== null ? (
          <p className="muted">{errorMessage(debug.error)}</p>
        ) : (
          <p className="muted">Carregando…</p>
        )
      ) : (
        <>
          <h3>Fila de transmissão</h3>
          {x.logs.length === 0 ? (
            <p className="muted">Nada transmitido ainda.</p>
          ) : (
            <table className="grid" data-testid="cte-debug-logs">
              <thead>
                <tr>
                  <th>Quando</th>
                  <th>Operação</th>
                  <th>Estado</th>
                  <th className="num">Tentativas</th>
                  <th>Retorno</th>
                </tr>
              </thead>
              <tbody>
                {x.logs.map((l, i) => (
                  <tr key={i}>
                    <td>{dateTimeBr(l.at)}</td>
                    <td>
                      {OPERATION_PT[l.operation] ?? l.operation}
                      {l.tpEvento === null ? '' : ` ${l.tpEvento}`}
                    </td>
                    <td>{QUEUE_STATE_PT[l.state] ?? l.state}</td>
                    <td className="num">{l.attempts}</td>
                    <td>{answerText(l.cStat, l.xMotivo)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <DebugText
            title="Pedido recebido (request_payload)"
            text={JSON.stringify(x.cte.request_payload, null, 2)}
          />
          <DebugText title="XML assinado" text={x.xml.signed} />
          {x.xml.transmitted !== null ? <DebugText title="XML transmitido" text={x.xml.transmitted} /> : null}
          {x.xml.protocol !== null ? <DebugText title="Protocolo" text={x.xml.protocol} /> : null}
          <DebugText title="Registros (snapshot)" text={JSON.stringify(x.snapshot, null, 2)} />
        </>
      )}
    </section>
  );
}

const DEBUG_PRE = {
  maxHeight: '18rem',
  overflow: 'auto',
  whiteSpace: 'pre-wrap',
  wordBreak: 'break-all',
} as const;

function DebugText(props: { title: string; text: string }) {
  return (
    <details className="debug-block">
      <summary>{props.title}</summary>
      {/* Long XML lines wrap inside a box of their own: the page never scrolls sideways. */}
      <pre className="mono small" style={DEBUG_PRE}>
        {props.text}
      </pre>
    </details>
  );
}

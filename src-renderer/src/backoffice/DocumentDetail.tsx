// One note: identification, the authority's answer, items and totals, events, its XML and DANFE, and only
// the actions its state allows (docs/api.md "NF-e and NFC-e": states and actions).
import { useState } from 'react';
import {
  Banner,
  ErrorBanner,
  Modal,
  downloadText,
  newIdempotencyKey,
  useAction,
  useLoad,
} from '../components.tsx';
import { withApproval } from '../cashier/approval.ts';
import { useApp } from '../context.ts';
import { brlText, dateTimeBr, quantityBr } from '../format.ts';
import { STATUS_PT, errorMessage, otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import { refreshStatus } from '../StatusBar.tsx';
import { DocumentHead, EventsTable, IdentificationRows, usePollWhile } from './document-detail-parts.tsx';
import { CountedText } from './document-dialogs.tsx';
import { modelName } from './Documents.tsx';

/** NF-e may be cancelled within 24 h of the authorization, NFC-e within 30 min (docs/api.md, MOC 7.0). */
const CANCEL_WINDOW_MS = { 55: 24 * 3600_000, 65: 30 * 60_000 } as const;

const TOTAL_LABELS: readonly [string, string][] = [
  ['vProd', 'Produtos'],
  ['vDesc', 'Desconto'],
  ['vFrete', 'Frete'],
  ['vSeg', 'Seguro'],
  ['vOutro', 'Outras despesas'],
  ['vBC', 'Base ICMS'],
  ['vICMS', 'ICMS'],
  ['vST', 'ICMS ST'],
  ['vIPI', 'IPI'],
  ['vPIS', 'PIS'],
  ['vCOFINS', 'COFINS'],
  ['vTotTrib', 'Tributos aprox.'],
  ['vNF', 'Total da nota'],
];

type Dialog = 'cancel' | 'cce' | null;

export function DocumentDetail(props: { modelo: 55 | 65; id: string }) {
  const { api } = useApp();
  const { modelo, id } = props;
  const doc = useLoad(() => api.documents.get(modelo, id), [api, modelo, id]);
  const events = useLoad(() => api.documents.events(id).then((r) => r.items), [api, id]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const d = doc.data;

  // A note on its way (queue, contingency, cancellation) is followed until it settles.
  // A cancellation is queued (202): the note stays `autorizada` until the authority registers it.
  const [cancelSent, setCancelSent] = useState(false);
  const settling =
    d !== null &&
    (['processando', 'contingencia'].includes(d.status) ||
      (cancelSent && d.status === 'autorizada') ||
      (events.data ?? []).some((e) => e.status === 'processando'));
  usePollWhile(settling, 2000, () => {
    void doc.reload();
    void events.reload();
  });

  if (d === null)
    return (
      <div className="page">{doc.error !== null ? <ErrorBanner error={doc.error} /> : 'Carregando…'}</div>
    );

  const authorizedAt = d.autorizada_em === null ? null : new Date(d.autorizada_em).getTime();
  const cancelUntil = authorizedAt === null ? null : authorizedAt + CANCEL_WINDOW_MS[modelo];
  const canEdit = modelo === 55 && (d.status === 'rascunho' || d.status === 'erro');
  const canCancel = d.status === 'autorizada';
  const isNfe = modelo === 55;

  const send = async () => {
    const answer = await action.run(() => api.nfe.send(d.id, newIdempotencyKey('envio')));
    if (answer !== undefined) {
      setNotice(
        answer.status === 'autorizada'
          ? `NF-e autorizada. Protocolo ${answer.protocolo ?? '—'}.`
          : `NF-e enviada; situação: ${STATUS_PT[answer.status] ?? answer.status}.`,
      );
      refreshStatus();
    }
    await doc.reload();
    await events.reload();
  };
  const devolucao = async () => {
    const draft = await action.run(() => api.nfe.devolucao(d.id));
    if (draft !== undefined) navigate(`/nfe/${draft.id}/editar`);
  };
  const downloadXml = async () => {
    const xml = await action.run(() => api.documents.xml(modelo, d.id));
    if (xml !== undefined)
      downloadText(`${d.chave_acesso}-${d.status === 'autorizada' ? 'procNFe' : 'NFe'}.xml`, xml);
  };
  const print = async (again: boolean) => {
    // With a caixa signed in at this terminal a reprint asks for the supervisor (the same prompt as the cashier's).
    const job = await action.run(() =>
      again ? withApproval(api, 'reimprimir', (c) => c.nfce.reprint(d.id)) : api.nfce.print(d.id),
    );
    if (job !== undefined) setNotice('Cupom enviado para a impressora.');
  };

  return (
    <div className="page" data-testid="document-detail" data-status={d.status}>
      <DocumentHead
        back="/documentos"
        backLabel="Documentos"
        name={modelName(modelo)}
        numero={d.numero}
        serie={d.serie}
        status={d.status}
      />
      <div className="actions" aria-label="Ações">
        {canEdit ? (
          <>
            <button type="button" className="primary" onClick={() => void send()} disabled={action.pending}>
              {d.status === 'erro' ? 'Reenviar' : 'Enviar à SEFAZ'}
            </button>
            <a className="button" href={href(`/nfe/${d.id}/editar`)}>
              {d.status === 'erro' ? 'Corrigir' : 'Editar'}
            </a>
          </>
        ) : null}
        {canCancel ? (
          <button type="button" className="danger" onClick={() => setDialog('cancel')}>
            Cancelar nota
          </button>
        ) : null}
        {canCancel && isNfe ? (
          <>
            <button type="button" onClick={() => setDialog('cce')}>
              Carta de correção
            </button>
            <button type="button" onClick={() => void devolucao()} disabled={action.pending}>
              Devolução
            </button>
          </>
        ) : null}
        <button type="button" onClick={() => void downloadXml()}>
          Baixar XML
        </button>
        {d.status !== 'rascunho' ? (
          <a className="button" href={api.documents.danfeUrl(modelo, d.id)} target="_blank" rel="noreferrer">
            {isNfe ? 'DANFE (PDF)' : 'DANFE NFC-e (PDF)'}
          </a>
        ) : null}
        {!isNfe && (d.status === 'autorizada' || d.status === 'contingencia') ? (
          <>
            <button type="button" onClick={() => void print(false)}>
              Imprimir cupom
            </button>
            <button type="button" onClick={() => void print(true)}>
              Reimprimir
            </button>
          </>
        ) : null}
      </div>
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={action.error} extra={otherDetails(action.error, [])} />
      {d.status === 'erro' && d.cStat !== null ? (
        <Banner kind="error" testId="rejection">
          Rejeição {d.cStat}: {d.xMotivo}
        </Banner>
      ) : null}
      {d.status === 'contingencia' ? (
        <Banner kind="warn">
          Emitida em contingência offline: será transmitida assim que a SEFAZ responder.
        </Banner>
      ) : null}

      <div className="two-col">
        <section className="card">
          <h2>Identificação</h2>
          <dl className="props">
            <IdentificationRows
              chave={d.chave_acesso}
              dateLabel="Emissão"
              date={d.dh_emissao}
              ambiente={d.ambiente}
              tipoEmissao={TP_EMIS[d.tipo_emissao] ?? d.tipo_emissao}
              protocolo={d.protocolo}
              authorizedLabel="Autorizada em"
              authorizedAt={d.autorizada_em}
              cStat={d.cStat}
              xMotivo={d.xMotivo}
              cancelUntil={canCancel ? cancelUntil : null}
            />
            {d.substitui !== null ? (
              <>
                <dt>Substitui</dt>
                <dd className="mono small">{d.substitui}</dd>
              </>
            ) : null}
            {d.substituida_por !== null ? (
              <>
                <dt>Substituída por</dt>
                <dd className="mono small">{d.substituida_por}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <section className="card">
          <h2>Totais</h2>
          <dl className="props">
            {TOTAL_LABELS.filter(
              ([k]) => d.totais[k] !== undefined && (k === 'vNF' || d.totais[k] !== '0.00'),
            ).map(([k, label]) => (
              <Row key={k} label={label} value={brlText(d.totais[k])} strong={k === 'vNF'} />
            ))}
          </dl>
        </section>
      </div>

      <section className="card">
        <h2>Itens</h2>
        <table className="grid">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Código</th>
              <th>Descrição</th>
              <th>NCM</th>
              <th>CFOP</th>
              <th className="num">Qtd</th>
              <th className="num">Unitário</th>
              <th className="num">Total</th>
            </tr>
          </thead>
          <tbody>
            {d.itens.map((i) => (
              <tr key={i.nItem}>
                <td className="num">{i.nItem}</td>
                <td>{i.codigo}</td>
                <td>{i.descricao}</td>
                <td>{i.ncm}</td>
                <td>{i.cfop}</td>
                <td className="num">{quantityBr(i.quantidade ?? '0')}</td>
                <td className="num">{brlText(i.valor_unitario)}</td>
                <td className="num">{brlText(i.valor_total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <EventsTable
        testId="events"
        events={(events.data ?? []).map((e) => ({
          id: e.id,
          tpEvento: e.tpEvento,
          descricao: e.descricao,
          sequencia: e.sequencia,
          badge: e.status,
          retorno: e.cStat === null ? '—' : `${e.cStat} – ${e.xMotivo ?? ''}`,
          protocolo: e.protocolo,
          at: e.registrada_em ?? e.criada_em,
        }))}
      />

      {dialog === 'cancel' ? (
        <JustifiedDialog
          title={`Cancelar ${modelName(modelo)} nº ${d.numero}`}
          label="Justificativa (15 a 255 caracteres)"
          field="justificativa"
          confirm="Cancelar nota"
          danger
          note={
            cancelUntil === null
              ? undefined
              : `Prazo para cancelamento: até ${dateTimeBr(new Date(cancelUntil).toISOString())}.`
          }
          run={(text) => withApproval(api, 'cancelar_venda', (c) => c.documents.cancel(modelo, d.id, text))}
          onClose={() => setDialog(null)}
          onDone={(updated) => {
            setDialog(null);
            doc.setData(updated);
            setNotice('Pedido de cancelamento enviado.');
            setCancelSent(true);
            refreshStatus();
            void doc.reload();
            void events.reload();
          }}
        />
      ) : null}
      {dialog === 'cce' ? (
        <JustifiedDialog
          title="Carta de correção"
          label="Correção (15 a 1000 caracteres)"
          field="correcao"
          confirm="Enviar carta de correção"
          note="A carta de correção não pode alterar valores, impostos, dados cadastrais do emitente/destinatário nem a data de emissão."
          run={(text) => api.nfe.correctionLetter(d.id, text)}
          onClose={() => setDialog(null)}
          onDone={() => {
            setDialog(null);
            setNotice('Carta de correção enviada.');
            void events.reload();
          }}
        />
      ) : null}
    </div>
  );
}

const TP_EMIS: Readonly<Record<number, string>> = {
  1: 'Normal',
  6: 'Contingência SVC-AN',
  7: 'Contingência SVC-RS',
  9: 'Contingência offline NFC-e',
};

function Row(props: { label: string; value: string; strong?: boolean }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd className={`num${props.strong === true ? ' strong' : ''}`}>{props.value}</dd>
    </>
  );
}

/** A dialog with one justification text and the API's field message next to it. */
function JustifiedDialog<T>(props: {
  title: string;
  label: string;
  field: string;
  confirm: string;
  danger?: boolean;
  note?: string | undefined;
  run: (text: string) => Promise<T>;
  onClose: () => void;
  onDone: (answer: T) => void;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() => props.run(text))
            .then((answer) => {
              if (answer !== undefined) props.onDone(answer);
            });
        }}
      >
        {props.note !== undefined ? <p className="muted">{props.note}</p> : null}
        <CountedText label={props.label} value={text} onChange={setText} error={action.fields[props.field]} />
        {action.error !== null && action.fields[props.field] === undefined ? (
          <Banner kind="error" testId="error-banner">
            {errorMessage(action.error)}
          </Banner>
        ) : null}
        <div className="actions">
          <button
            type="submit"
            className={props.danger === true ? 'danger' : 'primary'}
            disabled={action.pending}
          >
            {props.confirm}
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

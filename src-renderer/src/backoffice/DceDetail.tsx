// One DC-e: identification and the authority's answer, who issues and declares, the recipient, the declared
// items and their total, the carriage and the cancellation, with only the actions its state allows (a draft
// is edited, sent, previewed or deleted; a rejected one edited and sent again; an authorized one cancelled;
// the DACE on A4 and on the shipping label, and the XML, once authorized).
import { Fragment, useState } from 'react';
import type { DceView, DceXmlAnswer } from '../../../src-shared/contracts/dce-view.ts';
import { DCE_CANCEL_DEADLINE_HOURS } from '../../../src-shared/tables/dce-codes.ts';
import { Banner, ErrorBanner, downloadText, newIdempotencyKey, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, dateTimeBr, decimalToBr, quantityBr, taxIdBr } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import { DceCancelDialog } from './DceCancelDialog.tsx';
import { MODALIDADE_PT, TIPO_EMITENTE_PT } from './DceList.tsx';
import { readDceContent, readDceEvent, type DceContent, type DceParty } from './dce-xml.ts';
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
import { DeleteDraftDialog } from './document-dialogs.tsx';

/** The DC-e's content and its events, read from its XML (the view carries neither). */
function readXml(xml: DceXmlAnswer) {
  const parser = new DOMParser();
  return {
    content: readDceContent(xml.dce_xml, parser),
    eventos: xml.eventos.map((e) => readDceEvent(e.xml, parser)),
  };
}

/** vUnCom with every decimal it has past the cents ("0.33333333" → "R$ 0,33333333"): the line total comes from it. */
function unitPriceBr(text: string): string {
  const places = Math.max(2, (text.split('.')[1] ?? '').replace(/0+$/, '').length);
  return `R$ ${decimalToBr(text, places)}`;
}

type Dialog = 'cancel' | 'delete' | null;

/** `sendFailed`: the form saved the DC-e but its send was refused (the address says `?envio=falhou`). */
export function DceDetail(props: { id: string; sendFailed?: boolean }) {
  const { api } = useApp();
  const doc = useLoad(() => api.dce.get(props.id), [api, props.id]);
  const xml = useLoad(async () => readXml(await api.dce.xml(props.id)), [api, props.id]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const d = doc.data;
  const reload = () => {
    void doc.reload();
    void xml.reload();
  };

  // Followed until it settles: on its way to the authority, or a cancellation waiting for its answer.
  const waitingEvent = xml.data?.eventos.some((e) => e.answer === null) ?? false;
  usePollWhile(d !== null && (d.status === 'processando' || waitingEvent), 1500, reload);

  if (d === null)
    return (
      <div className="page">{doc.error !== null ? <ErrorBanner error={doc.error} /> : 'Carregando…'}</div>
    );

  const editable = d.status === 'rascunho' || d.status === 'erro';
  // Only a DC-e the authority never answered may go (a draft, or an error found before it was sent).
  const canDelete = d.status === 'rascunho' || (d.status === 'erro' && d.cStat === null);
  const authorizedAt = d.authorized_at === null ? null : new Date(d.authorized_at).getTime();
  const cancelUntil = authorizedAt === null ? null : authorizedAt + DCE_CANCEL_DEADLINE_HOURS * 3600_000;
  const canCancel = d.status === 'autorizada' && !waitingEvent;
  // The DACE travels with an authorized DC-e (a cancelled one keeps its own, marked).
  const hasDace = d.protocolo !== null;

  const send = async () => {
    setNotice(null);
    // Queued (202): the "na fila" banner and the polling follow it until the authority answers.
    await action.run(() => api.dce.send(d.id, newIdempotencyKey('dce-envio')));
    reload();
  };
  const downloadXml = async () => {
    const answer = await action.run(() => api.dce.xml(d.id));
    if (answer === undefined) return;
    if (answer.proc_xml !== null) downloadText(`${d.chave_acesso}-procDCe.xml`, answer.proc_xml);
    else downloadText(`${d.chave_acesso}-DCe.xml`, answer.dce_xml);
  };

  const c = xml.data?.content ?? null;
  return (
    <div className="page" data-testid="dce-detail" data-status={d.status}>
      <DocumentHead
        back="/dce"
        backLabel="DC-e"
        name="DC-e"
        numero={d.numero}
        serie={d.serie}
        status={d.status}
      />
      <div className="actions" aria-label="Ações">
        {editable ? (
          <>
            <button type="button" className="primary" onClick={() => void send()} disabled={action.pending}>
              {d.status === 'erro' ? 'Reenviar' : 'Enviar'}
            </button>
            <a className="button" href={href(`/dce/${d.id}/editar`)}>
              Editar
            </a>
            <a
              className="button"
              href={api.dce.daceUrl(d.id, { previa: true })}
              target="_blank"
              rel="noreferrer"
            >
              Prévia do DACE
            </a>
          </>
        ) : null}
        {canDelete ? (
          <button type="button" className="danger" onClick={() => setDialog('delete')}>
            Excluir
          </button>
        ) : null}
        {d.status === 'processando' ? (
          <button type="button" onClick={reload} disabled={doc.loading}>
            Atualizar
          </button>
        ) : null}
        {canCancel ? (
          <button type="button" className="danger" onClick={() => setDialog('cancel')}>
            Cancelar DC-e
          </button>
        ) : null}
        {hasDace ? (
          <>
            <a className="button" href={api.dce.daceUrl(d.id)} target="_blank" rel="noreferrer">
              DACE A4
            </a>
            <a
              className="button"
              href={api.dce.daceUrl(d.id, { formato: 'etiqueta' })}
              target="_blank"
              rel="noreferrer"
            >
              DACE etiqueta
            </a>
          </>
        ) : null}
        <button type="button" onClick={() => void downloadXml()}>
          Baixar XML
        </button>
      </div>
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={action.error} extra={otherDetails(action.error, [])} />
      <SendFailedBanner
        show={props.sendFailed === true && d.status === 'rascunho' && action.error === null}
        saved="A DC-e foi salva"
        send="o envio"
        button="Enviar"
      />
      {d.status === 'erro' && d.cStat !== null ? (
        <Banner kind="error" testId="rejection">
          Rejeição {d.cStat}: {reason(d.xMotivo)}. Corrija em “Editar” e reenvie.
        </Banner>
      ) : null}
      <QueuedBanner show={d.status === 'processando'} authority="a SEFAZ" />
      {d.ambiente === 'homologacao' ? (
        <p className="muted small" data-testid="homologacao">
          Ambiente de homologação: a DC-e não tem valor fiscal.
        </p>
      ) : null}

      <div className="two-col">
        <section className="card">
          <h2>Identificação</h2>
          <dl className="props">
            <IdentificationRows
              chave={d.chave_acesso}
              dateLabel="Emissão"
              date={d.data_emissao}
              ambiente={d.ambiente}
              tipoEmissao="Normal"
              protocolo={d.protocolo}
              authorizedLabel="Autorizada em"
              authorizedAt={d.authorized_at}
              cStat={d.cStat}
              xMotivo={d.xMotivo}
              cancelUntil={canCancel ? cancelUntil : null}
            />
            {d.cancelled_at !== null ? (
              <>
                <dt>Cancelada em</dt>
                <dd>{dateTimeBr(d.cancelled_at)}</dd>
              </>
            ) : null}
            {d.url_chave !== null && d.protocolo !== null ? (
              <>
                <dt>Consulta pública</dt>
                <dd>
                  <a href={d.qr_code ?? d.url_chave} target="_blank" rel="noreferrer">
                    consultar a chave
                  </a>
                </dd>
              </>
            ) : null}
          </dl>
        </section>
        <section className="card">
          <h2>Emissão e transporte</h2>
          <dl className="props">
            <dt>Emitida como</dt>
            <dd data-testid="dce-tipo-emitente">{TIPO_EMITENTE_PT[d.tipo_emitente]}</dd>
            {c?.issuer != null ? (
              <>
                <dt>{d.tipo_emitente === 'transportadora' ? 'Transportadora' : 'Marketplace'}</dt>
                <dd>
                  {c.issuer.nome} <span className="muted small">{taxIdBr(c.issuer.cnpj)}</span>
                  {c.issuer.site !== null ? <span className="muted small"> · {c.issuer.site}</span> : null}
                </dd>
              </>
            ) : null}
            <dt>Modalidade</dt>
            <dd data-testid="dce-modalidade">{MODALIDADE_PT[d.modalidade_transporte]}</dd>
            {c?.cnpjTransp != null && d.modalidade_transporte === 'transportadora' ? (
              <>
                <dt>CNPJ da transportadora</dt>
                <dd>{taxIdBr(c.cnpjTransp)}</dd>
              </>
            ) : null}
            <dt>Valor total declarado</dt>
            <dd className="num strong" data-testid="dce-total">
              {brlText(d.valor_total)}
            </dd>
          </dl>
        </section>
      </div>
      <div className="two-col">
        <PartyCard
          title="Remetente (declarante)"
          testId="dce-emitente-view"
          party={c?.emitente ?? null}
          fallback={d.emitente}
        />
        <PartyCard
          title="Destinatário"
          testId="dce-destinatario-view"
          party={c?.destinatario ?? null}
          fallback={d.destinatario}
        />
      </div>
      {c !== null ? <Items content={c} /> : null}
      {c !== null && (c.informacoesComplementares !== null || c.observacoes.length > 0) ? (
        <section className="card" data-testid="dce-adicionais">
          <h2>Informações complementares</h2>
          {c.informacoesComplementares !== null ? <p>{c.informacoesComplementares}</p> : null}
          {c.observacoes.length > 0 ? (
            <dl className="props">
              {c.observacoes.map((o, i) => (
                <Fragment key={i}>
                  <dt>{o.campo}</dt>
                  <dd>{o.texto}</dd>
                </Fragment>
              ))}
            </dl>
          ) : null}
        </section>
      ) : null}

      <EventsTable
        testId="dce-events"
        events={(xml.data?.eventos ?? []).map((e, i) => ({
          id: `${e.tpEvento}-${e.nSeqEvento}-${i}`,
          tpEvento: e.tpEvento,
          descricao: e.descEvento || 'Cancelamento',
          sequencia: e.nSeqEvento,
          // A registered event wears the green of an accepted answer (the stylesheet's `homologada`).
          badge: e.answer === null ? 'processando' : e.answer.nProt !== null ? 'homologada' : 'erro',
          label: e.answer === null ? 'Processando' : e.answer.nProt !== null ? 'Registrado' : 'Rejeitado',
          retorno: answerText(e.answer?.cStat ?? null, e.answer?.xMotivo ?? null),
          protocolo: e.answer?.nProt ?? null,
          at: e.answer?.dhRegEvento ?? e.dhEvento,
        }))}
      />

      {dialog === 'cancel' ? (
        <DceCancelDialog
          dce={d}
          onClose={() => setDialog(null)}
          onDone={(answer) => {
            setDialog(null);
            setNotice(
              answer.event.status === 'registrada'
                ? 'Cancelamento registrado na SEFAZ.'
                : 'Pedido de cancelamento na fila da SEFAZ.',
            );
            reload();
          }}
        />
      ) : null}
      {dialog === 'delete' ? (
        <DeleteDialog dce={d} onClose={() => setDialog(null)} onDone={() => navigate('/dce')} />
      ) : null}
    </div>
  );
}

/** A party with its address as the XML has it; the view's document and name until the XML is read. */
function PartyCard(props: {
  title: string;
  testId: string;
  party: DceParty | null;
  fallback: { doc: string; nome: string };
}) {
  const p = props.party;
  const e = p?.endereco ?? null;
  return (
    <section className="card" data-testid={props.testId}>
      <h2>{props.title}</h2>
      <dl className="props">
        <dt>Nome</dt>
        <dd>{p?.nome ?? props.fallback.nome}</dd>
        <dt>{p?.idOutros != null ? 'Identificação' : 'CPF/CNPJ'}</dt>
        <dd>{p?.idOutros ?? taxIdBr(p?.cnpj ?? p?.cpf ?? props.fallback.doc)}</dd>
        <dt>Endereço</dt>
        <dd>
          {e === null
            ? '—'
            : `${e.xLgr}, ${e.nro}${e.xCpl !== null ? ` ${e.xCpl}` : ''} – ${e.xBairro}, ${e.xMun}/${e.uf} – CEP ${e.cep}`}
        </dd>
        {e?.email != null ? (
          <>
            <dt>E-mail</dt>
            <dd>{e.email}</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

function Items(props: { content: DceContent }) {
  const c = props.content;
  return (
    <section className="card">
      <h2>Conteúdo declarado</h2>
      <table className="grid" data-testid="dce-items-view">
        <thead>
          <tr>
            <th className="num">#</th>
            <th>Descrição</th>
            <th>NCM</th>
            <th className="num">Quantidade</th>
            <th className="num">Valor unitário</th>
            <th className="num">Total</th>
          </tr>
        </thead>
        <tbody>
          {c.itens.map((i, n) => (
            <tr key={n}>
              <td className="num">{n + 1}</td>
              <td>
                {i.descricao}
                {i.informacoesAdicionais !== null ? (
                  <div className="muted small">{i.informacoesAdicionais}</div>
                ) : null}
              </td>
              <td className="mono">{i.ncm}</td>
              <td className="num">{quantityBr(i.quantidade)}</td>
              <td className="num">{unitPriceBr(i.valorUnitario)}</td>
              <td className="num">{brlText(i.valorTotal)}</td>
            </tr>
          ))}
          <tr>
            <td colSpan={5}>
              <strong>Total (vDC)</strong>
            </td>
            <td className="num">
              <strong>{brlText(c.vDC)}</strong>
            </td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}

function DeleteDialog(props: { dce: DceView; onClose: () => void; onDone: () => void }) {
  const { api } = useApp();
  return (
    <DeleteDraftDialog
      title={`Excluir a DC-e nº ${props.dce.numero}`}
      remove={() => api.dce.remove(props.dce.id)}
      onClose={props.onClose}
      onDone={props.onDone}
    >
      <p>A DC-e ainda não enviada sai da lista; nada foi registrado na SEFAZ.</p>
    </DeleteDraftDialog>
  );
}

// What the page of one fiscal document shows alike whatever its kind (NF-e/NFC-e, CT-e, NFS-e, DC-e): its
// heading, the banners of a refused send and of the queue, the identification with the authority's answer and
// its words, the table of its events, and the polling while it settles.
import { useEffect, useRef, type ReactNode } from 'react';
import { Banner, StatusBadge } from '../components.tsx';
import { accessKeyBr, dateTimeBr } from '../format.ts';
import { STATUS_PT } from '../messages.ts';
import { href } from '../router.ts';

/** The way back to the list, then "CT-e nº 12 série 1" with the status badge. */
export function DocumentHead(props: {
  back: string;
  backLabel: string;
  name: string;
  numero: number;
  serie: number;
  status: string;
}) {
  return (
    <>
      <p>
        <a href={href(props.back)}>‹ {props.backLabel}</a>
      </p>
      <div className="page-head">
        <h1>
          {props.name} nº {props.numero} <span className="muted">série {props.serie}</span>{' '}
          <StatusBadge status={props.status} label={STATUS_PT[props.status] ?? props.status} />
        </h1>
      </div>
    </>
  );
}

/**
 * The form saved the document but its send was refused (the address says `?envio=falhou`): said while it is
 * still a draft and no later action failed. `saved` "A DC-e foi salva", `send` "o envio", `button` the send
 * button's words.
 */
export function SendFailedBanner(props: { show: boolean; saved: string; send: string; button: string }) {
  if (!props.show) return null;
  return (
    <Banner kind="warn" testId="send-failed">
      {props.saved} como rascunho, mas {props.send} não foi aceito: use “{props.button}” para tentar de novo e
      ver o motivo.
    </Banner>
  );
}

/** A document on its way (processando): the page follows it until `authority` ("a SEFAZ") answers. */
export function QueuedBanner(props: { show: boolean; authority: string }) {
  if (!props.show) return null;
  return (
    <Banner kind="info" testId="queued">
      Na fila de transmissão: a situação se atualiza sozinha quando {props.authority} responder.
    </Banner>
  );
}

/** The authority's text without its own "Rejeição:" / "Uso Denegado :" opening, which the banner says. */
export function reason(xMotivo: string | null): string {
  return (xMotivo ?? '').replace(/^(Rejei[çc][ãa]o|Uso Denegado)\s*:\s*/i, '');
}

/** "100 – Autorizado o uso do CT-e", the code alone when the text was not kept, "—" before any answer. */
export function answerText(cStat: string | null, xMotivo: string | null): string {
  if (cStat === null) return '—';
  return xMotivo === null || xMotivo === '' ? cStat : `${cStat} – ${xMotivo}`;
}

/** Calls `tick` every `ms` while `active`: a document on its way to the authority is followed until it settles. */
export function usePollWhile(active: boolean, ms: number, tick: () => void): void {
  // The latest tick is called, so the caller need not keep its identity stable.
  const latest = useRef(tick);
  useEffect(() => {
    latest.current = tick;
  });
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => latest.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

/** The rows of the identification card: key, date, environment, emission type and the authority's answer. */
export function IdentificationRows(props: {
  chave: string;
  /** "Emissão", "Criado em": what the kind's date means. */
  dateLabel: string;
  date: string | null;
  ambiente: string;
  tipoEmissao: ReactNode;
  protocolo: string | null;
  /** "Autorizada em", "Autorizado em": the label agrees with the document's name. */
  authorizedLabel: string;
  authorizedAt: string | null;
  cStat: string | null;
  xMotivo: string | null;
  /** The end of the cancellation window, null when the document cannot be cancelled. */
  cancelUntil: number | null;
}) {
  return (
    <>
      <dt>Chave de acesso</dt>
      <dd className="mono" data-testid="access-key">
        {accessKeyBr(props.chave)}
      </dd>
      <dt>{props.dateLabel}</dt>
      <dd>{dateTimeBr(props.date)}</dd>
      <dt>Ambiente</dt>
      <dd>{props.ambiente === 'producao' ? 'Produção' : 'Homologação'}</dd>
      <dt>Tipo de emissão</dt>
      <dd>{props.tipoEmissao}</dd>
      <dt>Protocolo</dt>
      <dd data-testid="protocol">{props.protocolo ?? '—'}</dd>
      <dt>{props.authorizedLabel}</dt>
      <dd>{dateTimeBr(props.authorizedAt)}</dd>
      {props.cStat !== null ? (
        <>
          <dt>Retorno SEFAZ</dt>
          <dd>
            {props.cStat} – {props.xMotivo}
          </dd>
        </>
      ) : null}
      {props.cancelUntil !== null ? (
        <>
          <dt>Cancelamento até</dt>
          <dd>{dateTimeBr(new Date(props.cancelUntil).toISOString())}</dd>
        </>
      ) : null}
    </>
  );
}

/** One event as the table shows it; each kind maps its own event view to it. */
export type EventRow = {
  id: string;
  tpEvento: string;
  descricao: string;
  sequencia: number;
  /** The badge's colour (a status of the stylesheet) and its text, the status itself when absent. */
  badge: string;
  label?: string | undefined;
  /** The authority's answer, "—" before it. */
  retorno: string;
  protocolo: string | null;
  at: string | null;
};

export function EventsTable(props: { events: readonly EventRow[]; testId: string }) {
  return (
    <section className="card">
      <h2>Eventos</h2>
      {props.events.length === 0 ? (
        <p className="muted">Nenhum evento.</p>
      ) : (
        <table className="grid" data-testid={props.testId}>
          <thead>
            <tr>
              <th>Evento</th>
              <th className="num">Seq.</th>
              <th>Situação</th>
              <th>Retorno</th>
              <th>Protocolo</th>
              <th>Registrado em</th>
            </tr>
          </thead>
          <tbody>
            {props.events.map((e) => (
              <tr key={e.id} data-event-type={e.tpEvento}>
                <td>
                  {e.descricao} <span className="muted small">({e.tpEvento})</span>
                </td>
                <td className="num">{e.sequencia}</td>
                <td>
                  <StatusBadge status={e.badge} {...(e.label === undefined ? {} : { label: e.label })} />
                </td>
                <td>{e.retorno}</td>
                <td>{e.protocolo ?? '—'}</td>
                <td>{dateTimeBr(e.at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

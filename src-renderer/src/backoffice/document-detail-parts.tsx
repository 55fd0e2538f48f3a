// What the page of one fiscal document shows alike whatever its kind (NF-e/NFC-e, CT-e): the identification
// with the authority's answer, and the table of its events.
import type { ReactNode } from 'react';
import { StatusBadge } from '../components.tsx';
import { accessKeyBr, dateTimeBr } from '../format.ts';

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

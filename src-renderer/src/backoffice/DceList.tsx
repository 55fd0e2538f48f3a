// Back office: the DC-e list (GET /v1/dce, §4.6 `{data, meta}`) with the status and period filters and the
// search (key, number or recipient) kept in the address, and its pages.
import { useEffect, useState } from 'react';
import {
  DCE_STATUSES,
  DCE_TIPOS_EMITENTE,
  type DceTipoEmitente,
  type DceView,
} from '../../../src-shared/contracts/dce-view.ts';
import { EmptyRow, ErrorBanner, Field, StatusBadge, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, dateTimeBr, taxIdBr } from '../format.ts';
import { STATUS_PT, otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import {
  ListFilters,
  MetaPager,
  listPage,
  listPath,
  periodFilter,
  periodFilterProps,
  periodQuery,
} from './document-lists.tsx';

const PAGE_SIZE = 20;

export const TIPO_EMITENTE_PT: Readonly<Record<DceView['tipo_emitente'], string>> = {
  marketplace: 'Marketplace / loja virtual',
  proprio: 'Emissor próprio',
  transportadora: 'Transportadora',
};

export const MODALIDADE_PT: Readonly<Record<DceView['modalidade_transporte'], string>> = {
  correios: 'Correios',
  proprio: 'Meios próprios',
  transportadora: 'Transportadora',
};

/** The choice of who issues, in the DC-e form and in Settings › DC-e. */
export function TipoEmitenteSelect(props: {
  value: DceTipoEmitente;
  onChange: (tipo: DceTipoEmitente) => void;
}) {
  return (
    <select
      value={props.value}
      onChange={(e) => props.onChange(e.target.value as DceTipoEmitente)}
      aria-label="Emitida como"
    >
      {DCE_TIPOS_EMITENTE.map((t) => (
        <option key={t} value={t}>
          {TIPO_EMITENTE_PT[t]}
        </option>
      ))}
    </select>
  );
}

export function dcePath(d: Pick<DceView, 'id'>): string {
  return `/dce/${d.id}`;
}

export function DceList(props: { query: URLSearchParams }) {
  const { api } = useApp();
  const q = props.query;
  const filter = { ...periodFilter(q), q: q.get('q') ?? '' };
  const page = listPage(q);
  // The search is typed freely and lands in the address when the typing pauses.
  const [search, setSearch] = useState(filter.q);
  useEffect(() => setSearch(filter.q), [filter.q]);
  useEffect(() => {
    if (search.trim() === filter.q) return;
    const timer = setTimeout(() => navigate(listPath('/dce', filter, { q: search.trim() })), 400);
    return () => clearTimeout(timer);
  });

  const setFilter = (changes: Partial<typeof filter> & { page?: number }) =>
    navigate(listPath('/dce', filter, changes));

  const list = useLoad(
    () =>
      api.dce.list({
        ...periodQuery(filter),
        ...(filter.q === '' ? {} : { q: filter.q }),
        page,
        limit: PAGE_SIZE,
      }),
    [api, filter.status, filter.from, filter.to, filter.q, page],
  );

  return (
    <div className="page">
      <div className="page-head">
        <h1>Declarações de conteúdo (DC-e)</h1>
        <div className="actions">
          <a className="button primary" href={href('/dce/nova')}>
            Nova DC-e
          </a>
        </div>
      </div>
      <ListFilters
        leading={
          <Field label="Buscar">
            <input
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              aria-label="Buscar DC-e"
              placeholder="chave, número ou destinatário"
            />
          </Field>
        }
        {...periodFilterProps(filter, setFilter)}
        statuses={DCE_STATUSES}
        fromLabel="Criadas de"
        base="/dce"
      />
      <ErrorBanner error={list.error} extra={otherDetails(list.error, [])} />
      <table className="grid" data-testid="dce-list">
        <thead>
          <tr>
            <th className="num">DC-e</th>
            <th>Emissão</th>
            <th>Situação</th>
            <th>Destinatário</th>
            <th>Transporte</th>
            <th className="num">Itens</th>
            <th className="num">Valor</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((d) => (
            <tr key={d.id} className="clickable" onClick={() => navigate(dcePath(d))} data-dce-id={d.id}>
              <td className="num">
                <a href={href(dcePath(d))} onClick={(e) => e.stopPropagation()}>
                  {d.numero}
                </a>{' '}
                <span className="muted small">série {d.serie}</span>
              </td>
              <td>{dateTimeBr(d.data_emissao)}</td>
              <td>
                <StatusBadge status={d.status} label={STATUS_PT[d.status] ?? d.status} />
              </td>
              <td>
                {d.destinatario.nome}{' '}
                <span className="muted small">
                  {taxIdBr(d.destinatario.doc)} · {d.destinatario.municipio}/{d.destinatario.uf}
                </span>
              </td>
              <td className="muted small">{MODALIDADE_PT[d.modalidade_transporte]}</td>
              <td className="num">{d.itens_count}</td>
              <td className="num">{brlText(d.valor_total)}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={7}>
            Nenhuma DC-e com estes filtros.
          </EmptyRow>
        </tbody>
      </table>
      <MetaPager page={page} meta={list.data?.meta} onPage={(p) => setFilter({ page: p })} />
    </div>
  );
}

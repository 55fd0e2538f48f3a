// Back office: the NFS-e list (GET /v1/nfse, §4.6 `{data, meta}`) with the status and period filters kept in
// the address and its pages. An authorized note is `authorized` in the API (spec §3) and "Autorizada" here.
import type { NfseView } from '../../../src-shared/contracts/nfse-view.ts';
import { EmptyRow, ErrorBanner, StatusBadge, useLoad } from '../components.tsx';
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
/** The statuses an NFS-e takes, as the API writes them. */
const STATUS_FILTERS = ['rascunho', 'processando', 'authorized', 'erro', 'cancelada', 'substituida'] as const;

/** The stored status a badge and its label use: the API's `authorized` is the other kinds' `autorizada`. */
export function nfseStatusKey(status: string): string {
  return status === 'authorized' ? 'autorizada' : status;
}

/** The badge wears the colour of the stored status (the stylesheet knows `autorizada`). */
export function NfseStatusBadge(props: { status: string }) {
  return <StatusBadge status={nfseStatusKey(props.status)} label={STATUS_PT[props.status] ?? props.status} />;
}

export function nfsePath(n: Pick<NfseView, 'id'>): string {
  return `/nfse/${n.id}`;
}

/** A money value of the NFS-e view (a JSON number) as "R$ 1.500,50". */
export function nfseMoney(value: number | string | null): string {
  if (value === null) return '—';
  // The contract's numbers have at most two places: toFixed(2) only writes their decimal text.
  return brlText(typeof value === 'number' ? value.toFixed(2) : value);
}

export function NfseList(props: { query: URLSearchParams }) {
  const { api } = useApp();
  const q = props.query;
  const filter = periodFilter(q);
  const page = listPage(q);

  const setFilter = (changes: Partial<typeof filter> & { page?: number }) =>
    navigate(listPath('/nfse', filter, changes));

  const list = useLoad(
    () => api.nfse.list({ ...periodQuery(filter), page, limit: PAGE_SIZE }),
    [api, filter.status, filter.from, filter.to, page],
  );

  return (
    <div className="page">
      <div className="page-head">
        <h1>Notas fiscais de serviço (NFS-e)</h1>
        <div className="actions">
          <a className="button primary" href={href('/nfse/nova')}>
            Nova NFS-e
          </a>
        </div>
      </div>
      <ListFilters
        {...periodFilterProps(filter, setFilter)}
        statuses={STATUS_FILTERS}
        fromLabel="Criadas de"
        base="/nfse"
      />
      <ErrorBanner error={list.error} extra={otherDetails(list.error, [])} />
      <table className="grid" data-testid="nfse-list">
        <thead>
          <tr>
            <th className="num">NFS-e</th>
            <th className="num">DPS</th>
            <th>Emissão</th>
            <th>Situação</th>
            <th>Tomador</th>
            <th>Serviço</th>
            <th className="num">Valor</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((n) => (
            <tr key={n.id} className="clickable" onClick={() => navigate(nfsePath(n))} data-nfse-id={n.id}>
              <td className="num">
                <a href={href(nfsePath(n))} onClick={(e) => e.stopPropagation()}>
                  {n.numero_nfse ?? '—'}
                </a>
              </td>
              <td className="num">
                {n.numero} <span className="muted small">série {n.serie}</span>
              </td>
              <td>{dateTimeBr(n.data_emissao)}</td>
              <td>
                <NfseStatusBadge status={n.status} />
              </td>
              <td>
                {n.tomador === null ? (
                  '—'
                ) : (
                  <>
                    {n.tomador.razao_social}{' '}
                    <span className="muted small">{taxIdBr(n.tomador.cpf_cnpj)}</span>
                  </>
                )}
              </td>
              <td className="muted small">{n.codigo_tributacao_nacional}</td>
              <td className="num">{nfseMoney(n.valor_total)}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={7}>
            Nenhuma NFS-e com estes filtros.
          </EmptyRow>
        </tbody>
      </table>
      <MetaPager page={page} meta={list.data?.meta} onPage={(p) => setFilter({ page: p })} />
    </div>
  );
}

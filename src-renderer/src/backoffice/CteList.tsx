// Back office: the CT-e list (GET /v1/cte, §4.6 `{data, meta}`) with the status and period filters kept in
// the address, its pages, and the void of a range of CT-e numbers.
import { useState } from 'react';
import type { CteView } from '../../../src-shared/contracts/cte-view.ts';
import { EmptyRow, ErrorBanner, StatusBadge, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, dateBr, dateTimeBr } from '../format.ts';
import { STATUS_PT, otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import {
  ListFilters,
  MetaPager,
  VoidRangeDialog,
  listPage,
  listPath,
  periodFilter,
  periodFilterProps,
  periodQuery,
  rangeNumbers,
  type RangeForm,
} from './document-lists.tsx';

const PAGE_SIZE = 20;
const STATUS_FILTERS = ['rascunho', 'processando', 'autorizada', 'erro', 'denegada', 'cancelada'] as const;

export function ctePath(cte: Pick<CteView, 'id'>): string {
  return `/cte/${cte.id}`;
}

/** "Campinas/SP → Curitiba/PR". */
export function routeText(cte: Pick<CteView, 'origem' | 'destino'>): string {
  return `${cte.origem.municipio}/${cte.origem.uf} → ${cte.destino.municipio}/${cte.destino.uf}`;
}

export function CteList(props: { query: URLSearchParams }) {
  const { api } = useApp();
  const q = props.query;
  const filter = periodFilter(q);
  const page = listPage(q);
  const [voiding, setVoiding] = useState(false);

  const setFilter = (changes: Partial<typeof filter> & { page?: number }) =>
    navigate(listPath('/cte', filter, changes));

  const list = useLoad(
    () => api.cte.list({ ...periodQuery(filter), page, limit: PAGE_SIZE }),
    [api, filter.status, filter.from, filter.to, page],
  );

  return (
    <div className="page">
      <div className="page-head">
        <h1>Conhecimentos de transporte (CT-e)</h1>
        <div className="actions">
          <a className="button primary" href={href('/cte/novo')}>
            Novo CT-e
          </a>
          <button type="button" onClick={() => setVoiding(true)}>
            Inutilizar numeração
          </button>
        </div>
      </div>
      <ListFilters
        {...periodFilterProps(filter, setFilter)}
        statuses={STATUS_FILTERS}
        fromLabel="Criados de"
        base="/cte"
      />
      <ErrorBanner error={list.error} extra={otherDetails(list.error, [])} />
      <table className="grid" data-testid="cte-list">
        <thead>
          <tr>
            <th className="num">Número</th>
            <th className="num">Série</th>
            <th>Criado em</th>
            <th>Situação</th>
            <th>Percurso</th>
            <th>Destinatário</th>
            <th className="num">Valor</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((c) => (
            <tr key={c.id} className="clickable" onClick={() => navigate(ctePath(c))} data-cte-id={c.id}>
              <td className="num">
                <a href={href(ctePath(c))} onClick={(e) => e.stopPropagation()}>
                  {c.numero}
                </a>
              </td>
              <td className="num">{c.serie}</td>
              <td>{dateTimeBr(c.created_at)}</td>
              <td>
                <StatusBadge status={c.status} label={STATUS_PT[c.status] ?? c.status} />
                {c.tipo_emissao !== 1 ? <span className="tag">contingência SVC</span> : null}
              </td>
              <td>{routeText(c)}</td>
              <td>{c.destinatario.nome}</td>
              <td className="num">{brlText(c.valor_total)}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={7}>
            Nenhum CT-e com estes filtros.
          </EmptyRow>
        </tbody>
      </table>
      <MetaPager page={page} meta={list.data?.meta} onPage={(p) => setFilter({ page: p })} />
      {voiding ? (
        <CteVoidDialog
          onClose={() => setVoiding(false)}
          onDone={() => {
            setVoiding(false);
            void list.reload();
          }}
        />
      ) : null}
    </div>
  );
}

/** POST /v1/cte/inutilizar: what the authority did, and the deadline to communicate it. */
function CteVoidDialog(props: { onClose: () => void; onDone: () => void }) {
  const { api } = useApp();
  const send = async (form: RangeForm) => {
    const answer = await api.cte.voidRange({ ...rangeNumbers(form), justificativa: form.justificativa });
    const range = `CT-e ${answer.numeroInicial} a ${answer.numeroFinal} da série ${answer.serie}`;
    // CT-e 4.00 authorities offer no inutilização service: the service records the range and says so.
    const status = !answer.transmitida
      ? `Numeração registrada como inutilizada no Balcão (${range}): as autorizadoras do CT-e 4.00 não oferecem o serviço de inutilização, então nada foi enviado à SEFAZ. Guarde a justificativa.`
      : answer.status === 'inutilizada'
        ? `Inutilização homologada (${range}, protocolo ${answer.protocolo ?? '—'}).`
        : answer.status === 'rejeitada'
          ? `Inutilização recusada${answer.cStat === null ? '' : ` (${answer.cStat} – ${answer.xMotivo ?? ''})`}.`
          : 'Pedido enviado; aguardando a SEFAZ.';
    return {
      ok: answer.status !== 'rejeitada',
      text: `${status} Prazo para comunicar: ${dateBr(answer.prazo)}.`,
    };
  };
  return (
    <VoidRangeDialog
      title="Inutilizar numeração de CT-e"
      initial={{ serie: '1', numeroInicial: '', numeroFinal: '', justificativa: '' }}
      intro={
        <p className="muted">Números de CT-e pulados devem ser inutilizados até o dia 10 do mês seguinte.</p>
      }
      send={send}
      onClose={props.onClose}
      onDone={props.onDone}
    />
  );
}

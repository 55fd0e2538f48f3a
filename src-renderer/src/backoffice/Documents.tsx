// Back office: the NF-e and NFC-e list with the filters of the API (status, period, model) and pagination,
// the void of a number range (inutilização) and the month's XML zip for the accountant.
import { useState } from 'react';
import type { DocumentView } from '../../../src-shared/contracts/api-client.ts';
import { EmptyRow, ErrorBanner, Field, Modal, Pager, StatusBadge, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, dateTimeBr } from '../format.ts';
import { STATUS_PT, otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import {
  ListFilters,
  VoidRangeDialog,
  listPage,
  listPath,
  rangeNumbers,
  type RangeForm,
} from './document-lists.tsx';

const PAGE_SIZE = 20;
const STATUS_FILTERS = [
  'rascunho',
  'processando',
  'contingencia',
  'autorizada',
  'erro',
  'denegada',
  'cancelada',
  'inutilizada',
] as const;

export function modelName(modelo: number): string {
  return modelo === 65 ? 'NFC-e' : 'NF-e';
}

export function documentPath(doc: Pick<DocumentView, 'id' | 'modelo'>): string {
  return `/documentos/${doc.modelo}/${doc.id}`;
}

export function DocumentList(props: { query: URLSearchParams }) {
  const { api } = useApp();
  const q = props.query;
  const filter = {
    modelo: (q.get('modelo') ?? '') as '' | '55' | '65',
    status: q.get('status') ?? '',
    data_inicio: q.get('data_inicio') ?? '',
    data_fim: q.get('data_fim') ?? '',
  };
  const page = listPage(q);
  const [voiding, setVoiding] = useState(false);
  const [exporting, setExporting] = useState(false);

  const setFilter = (changes: Partial<typeof filter> & { page?: number }) =>
    navigate(listPath('/documentos', filter, changes));

  const list = useLoad(async () => {
    const common = {
      ...(filter.status === '' ? {} : { status: filter.status }),
      ...(filter.data_inicio === '' ? {} : { data_inicio: filter.data_inicio }),
      ...(filter.data_fim === '' ? {} : { data_fim: filter.data_fim }),
    };
    if (filter.modelo === '65') {
      // NFC-e lists page by limit/offset (§4.2).
      const r = await api.nfce.list({ ...common, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
      return { items: r.items, total: r.total };
    }
    const r = await api.nfe.list({
      ...common,
      ...(filter.modelo === '55' ? { modelo: '55' as const } : {}),
      page,
      pageSize: PAGE_SIZE,
    });
    return { items: r.items, total: r.total };
  }, [api, filter.modelo, filter.status, filter.data_inicio, filter.data_fim, page]);

  return (
    <div className="page">
      <div className="page-head">
        <h1>Documentos fiscais</h1>
        <div className="actions">
          <a className="button primary" href={href('/nfe/nova')}>
            Nova NF-e
          </a>
          <button type="button" onClick={() => setVoiding(true)}>
            Inutilizar numeração
          </button>
          <button type="button" onClick={() => setExporting(true)}>
            Exportar XML do mês
          </button>
        </div>
      </div>
      <ListFilters
        leading={
          <Field label="Modelo">
            <select
              value={filter.modelo}
              onChange={(e) => setFilter({ modelo: e.target.value as typeof filter.modelo })}
              aria-label="Modelo"
            >
              <option value="">NF-e e NFC-e</option>
              <option value="55">NF-e (55)</option>
              <option value="65">NFC-e (65)</option>
            </select>
          </Field>
        }
        status={filter.status}
        statuses={STATUS_FILTERS}
        onStatus={(status) => setFilter({ status })}
        fromLabel="Emitidas de"
        from={filter.data_inicio}
        to={filter.data_fim}
        onFrom={(iso) => setFilter({ data_inicio: iso })}
        onTo={(iso) => setFilter({ data_fim: iso })}
        base="/documentos"
      />
      <ErrorBanner error={list.error} extra={otherDetails(list.error, [])} />
      <table className="grid" data-testid="documents">
        <thead>
          <tr>
            <th>Modelo</th>
            <th className="num">Número</th>
            <th className="num">Série</th>
            <th>Emissão</th>
            <th>Situação</th>
            <th className="num">Valor</th>
            <th>Chave de acesso</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((d) => (
            <tr key={d.id} className="clickable" onClick={() => navigate(documentPath(d))} data-doc-id={d.id}>
              <td>{modelName(d.modelo)}</td>
              <td className="num">
                <a href={href(documentPath(d))} onClick={(e) => e.stopPropagation()}>
                  {d.numero}
                </a>
              </td>
              <td className="num">{d.serie}</td>
              <td>{dateTimeBr(d.dh_emissao)}</td>
              <td>
                <StatusBadge status={d.status} label={STATUS_PT[d.status] ?? d.status} />
                {d.tipo_emissao !== 1 ? (
                  <span className="tag">{d.tipo_emissao === 9 ? 'emitida offline' : 'contingência SVC'}</span>
                ) : null}
              </td>
              <td className="num">{brlText(d.valor_total)}</td>
              <td className="mono small">{d.chave_acesso}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.items} colSpan={7}>
            Nenhum documento com estes filtros.
          </EmptyRow>
        </tbody>
      </table>
      {list.data !== null ? (
        <Pager
          page={page}
          pageSize={PAGE_SIZE}
          total={list.data.total}
          onPage={(p) => setFilter({ page: p })}
        />
      ) : null}
      {exporting ? <XmlExportDialog onClose={() => setExporting(false)} /> : null}
      {voiding ? (
        <NfVoidDialog
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

/** `AAAA-MM` of the month before `today`'s: what the accountant asks for in the first days of a month. */
export function previousMonth(today: Date): string {
  const d = new Date(today.getFullYear(), today.getMonth() - 1, 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

/**
 * The month's XML zip (GET /v1/companies/:id/xml-export): a plain link with the key in `?api_key=`, so the
 * browser downloads the stream itself instead of the page holding the whole zip in memory.
 */
function XmlExportDialog(props: { onClose: () => void }) {
  const { api, company } = useApp();
  const [mes, setMes] = useState(() => previousMonth(new Date()));
  const valid = /^\d{4}-(0[1-9]|1[0-2])$/.test(mes);
  return (
    <Modal title="Exportar XML do mês" onClose={props.onClose}>
      <p className="muted">
        Um arquivo zip para o contador: o XML de cada NF-e e NFC-e autorizada, denegada ou cancelada do mês,
        os eventos (cancelamentos, cartas de correção), as inutilizações e um resumo em CSV.
      </p>
      <Field label="Mês">
        <input type="month" value={mes} onChange={(e) => setMes(e.target.value)} aria-label="Mês" />
      </Field>
      <div className="actions">
        {valid ? (
          <a
            className="button primary"
            href={api.link(`/companies/${company.id}/xml-export`, { mes })}
            download={`xml-${company.cnpj}-${mes}.zip`}
          >
            Baixar zip
          </a>
        ) : (
          <span className="muted">Escolha um mês.</span>
        )}
      </div>
    </Modal>
  );
}

/** Inutilização of a range of numbers never used (POST /v1/nfe/inutilizar). */
function NfVoidDialog(props: { onClose: () => void; onDone: () => void }) {
  const { api } = useApp();
  const send = async (form: RangeForm & { modelo: string }) => {
    const answer = await api.nfe.voidRange({
      modelo: form.modelo === '65' ? 65 : 55,
      ...rangeNumbers(form),
      justificativa: form.justificativa,
    });
    return {
      ok: true,
      text:
        answer.status === 'inutilizada'
          ? `Inutilização homologada (protocolo ${answer.protocolo ?? '—'}).`
          : `Pedido enviado; situação: ${answer.status}.`,
    };
  };
  return (
    <VoidRangeDialog
      title="Inutilizar numeração"
      initial={{ modelo: '55', serie: '1', numeroInicial: '', numeroFinal: '', justificativa: '' }}
      leading={(form, set, f) => (
        <Field label="Modelo" error={f['modelo']}>
          <select value={form.modelo} onChange={set('modelo')}>
            <option value="55">NF-e (55)</option>
            <option value="65">NFC-e (65)</option>
          </select>
        </Field>
      )}
      leadingFields={['modelo']}
      send={send}
      onClose={props.onClose}
      onDone={props.onDone}
    />
  );
}

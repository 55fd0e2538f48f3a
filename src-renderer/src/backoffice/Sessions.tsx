// Caixas: the register sessions, open and closed, each with its shift report (sales by method,
// cancellations, voids, pending contingency notes, movements, the count and its differences), reprintable.
import { useState } from 'react';
import type { SessionView } from '../../../src-shared/contracts/api-client.ts';
import {
  Banner,
  DateInput,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { brlNumber } from '../register/money.ts';
import { ShiftReportView } from '../register/ShiftReport.tsx';

export function SessionsScreen() {
  const { api } = useApp();
  const [status, setStatus] = useState<'' | 'aberta' | 'fechada'>('');
  const [de, setDe] = useState('');
  const [ate, setAte] = useState('');
  const list = useLoad(
    () =>
      api.registerSessions
        .list({
          ...(status === '' ? {} : { status }),
          ...(de === '' ? {} : { de }),
          ...(ate === '' ? {} : { ate }),
          limit: 100,
        })
        .then((r) => r.data),
    [api, status, de, ate],
  );
  const [open, setOpen] = useState<SessionView | null>(null);
  return (
    <div className="page" data-testid="sessions-page">
      <div className="page-head">
        <h1>Caixas</h1>
      </div>
      <div className="filters card">
        <Field label="Situação">
          <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">Todos</option>
            <option value="aberta">Abertos</option>
            <option value="fechada">Fechados</option>
          </select>
        </Field>
        <Field label="De">
          <DateInput value={de} onChange={setDe} aria-label="De" />
        </Field>
        <Field label="Até">
          <DateInput value={ate} onChange={setAte} aria-label="Até" />
        </Field>
      </div>
      <ErrorBanner error={list.error} />
      <table className="grid" data-testid="sessions-table">
        <thead>
          <tr>
            <th>Caixa</th>
            <th>Aberto em</th>
            <th>Por</th>
            <th className="num">Fundo</th>
            <th className="num">Vendas</th>
            <th>Fechado em</th>
            <th>Por</th>
            <th className="num">Diferença</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((s) => (
            <tr key={s.id} className="clickable" onClick={() => setOpen(s)} data-session-id={s.id}>
              <td>{s.caixa}</td>
              <td>{dateTimeBr(s.aberta_em)}</td>
              <td>{s.aberta_por?.nome ?? '—'}</td>
              <td className="num">{brlNumber(s.fundo_troco)}</td>
              <td className="num">{s.vendas.quantidade}</td>
              <td>{s.status === 'aberta' ? 'Aberto' : dateTimeBr(s.fechada_em)}</td>
              <td>{s.fechada_por?.nome ?? '—'}</td>
              <td className="num">{s.fechamento === null ? '—' : brlNumber(s.fechamento.diferenca_total)}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data} colSpan={8}>
            Nenhum caixa no período.
          </EmptyRow>
        </tbody>
      </table>
      {open !== null ? <SessionDialog session={open} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}

function SessionDialog(props: { session: SessionView; onClose: () => void }) {
  const { api } = useApp();
  const s = props.session;
  const report = useLoad(() => api.registerSessions.report(s.id), [api, s.id]);
  const print = useAction();
  const [printed, setPrinted] = useState(false);
  return (
    <Modal title={`Caixa ${s.caixa} · ${dateTimeBr(s.aberta_em)}`} onClose={props.onClose} wide>
      {s.status === 'aberta' ? (
        <Banner kind="info">Caixa aberto: os valores esperados aparecem depois do fechamento.</Banner>
      ) : null}
      <ErrorBanner error={report.error ?? print.error} />
      {report.data !== null ? <ShiftReportView report={report.data} /> : null}
      {printed ? <Banner kind="ok">Relatório enviado para a impressora.</Banner> : null}
      <div className="actions">
        <button
          type="button"
          disabled={print.pending}
          onClick={() =>
            void print
              .run(() => api.registerSessions.printReport(s.id))
              .then((r) => setPrinted(r !== undefined))
          }
        >
          Imprimir relatório
        </button>
        <button type="button" onClick={props.onClose}>
          Voltar
        </button>
      </div>
    </Modal>
  );
}

// The shift report on screen (the service prints the same one): sales by method, cancellations, voids,
// contingency notes still pending, movements, and the count against what was expected.
import type { ShiftReport, SessionView } from '../../../src-shared/contracts/api-client.ts';
import { dateTimeBr } from '../format.ts';
import { brlNumber, methodName } from './money.ts';

/** Expected, counted and difference per method (the closing), shown only once the count is confirmed. */
export function ClosingTable(props: { fechamento: NonNullable<SessionView['fechamento']> }) {
  const { contado, esperado, diferenca, diferenca_total } = props.fechamento;
  const methods = [...new Set([...Object.keys(esperado), ...Object.keys(contado)])];
  return (
    <table className="grid" data-testid="closing-table">
      <thead>
        <tr>
          <th>Forma</th>
          <th className="num">Contado</th>
          <th className="num">Esperado</th>
          <th className="num">Diferença</th>
        </tr>
      </thead>
      <tbody>
        {methods.map((m) => (
          <tr key={m} data-metodo={m}>
            <td>{methodName(m)}</td>
            <td className="num">{brlNumber(contado[m] ?? 0)}</td>
            <td className="num">{brlNumber(esperado[m] ?? 0)}</td>
            <td className={`num${(diferenca[m] ?? 0) !== 0 ? ' diff' : ''}`} data-testid={`diff-${m}`}>
              {brlNumber(diferenca[m] ?? 0)}
            </td>
          </tr>
        ))}
        <tr className="total-row">
          <td colSpan={3}>Diferença total</td>
          <td className="num" data-testid="diff-total">
            {brlNumber(diferenca_total)}
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** `withClosing` false: the closing table is already on screen above the report. */
export function ShiftReportView(props: { report: ShiftReport; withClosing?: boolean }) {
  const r = props.report;
  return (
    <div className="shift-report" data-testid="shift-report">
      <p>
        Caixa {r.sessao.caixa ?? ''} · Fundo de troco {brlNumber(r.fundo_troco)} · Vendas:{' '}
        <strong data-testid="report-sales-count">{r.vendas.quantidade}</strong> ·{' '}
        <strong data-testid="report-sales-total">{brlNumber(r.vendas.total)}</strong>
      </p>
      <h3>Vendas por forma de pagamento</h3>
      {r.por_metodo.length === 0 ? <p className="muted">Nenhuma venda neste turno.</p> : null}
      <table className="grid" data-testid="report-methods">
        <tbody>
          {r.por_metodo.map((m) => (
            <tr key={m.metodo} data-metodo={m.metodo}>
              <td>{methodName(m.metodo)}</td>
              <td className="num">{m.quantidade}</td>
              <td className="num">{brlNumber(m.valor)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {(r.troco ?? 0) !== 0 ? (
        <p>
          Troco dado em dinheiro: <strong>{brlNumber(r.troco)}</strong> (já descontado do dinheiro)
        </p>
      ) : null}
      {r.movimentos.length > 0 ? (
        <>
          <h3>Sangrias e suprimentos</h3>
          <table className="grid" data-testid="report-movements">
            <tbody>
              {r.movimentos.map((m) => (
                <tr key={m.id}>
                  <td>{dateTimeBr(m.created_at)}</td>
                  <td>{m.tipo === 'sangria' ? 'Sangria' : 'Suprimento'}</td>
                  <td>{m.motivo}</td>
                  <td className="num">{brlNumber(m.valor)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {r.cancelamentos.length > 0 ? (
        <>
          <h3>Cancelamentos</h3>
          <ul>
            {r.cancelamentos.map((c) => (
              <li key={c.id}>
                NFC-e {c.numero} (série {c.serie}) · {brlNumber(c.valor)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {r.voids.length > 0 ? (
        <>
          <h3>Itens e vendas abandonados</h3>
          <ul data-testid="report-voids">
            {r.voids.map((v, i) => (
              <li key={i}>
                {v.tipo === 'venda' ? 'Venda' : 'Item'}: {v.descricao ?? ''} · {brlNumber(v.valor ?? 0)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {r.contingencia_pendente.length > 0 ? (
        <>
          <h3>Em contingência, ainda não transmitidas</h3>
          <ul>
            {r.contingencia_pendente.map((c) => (
              <li key={c.id}>
                NFC-e {c.numero} (série {c.serie}) · {brlNumber(c.valor)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {props.withClosing !== false &&
      r.esperado !== null &&
      r.contado !== null &&
      r.diferenca !== null &&
      r.diferenca_total !== null ? (
        <>
          <h3>Fechamento</h3>
          <ClosingTable
            fechamento={{
              esperado: r.esperado,
              contado: r.contado,
              diferenca: r.diferenca,
              diferenca_total: r.diferenca_total,
            }}
          />
        </>
      ) : null}
    </div>
  );
}

// Relatórios: sales of a period by day, shift, operator, product or payment method, with the CSV the
// accountant opens in a spreadsheet (semicolon-separated, decimal comma).
import { useState } from 'react';
import type { SalesGrouping } from '../../../src-shared/contracts/api-client.ts';
import { DateInput, EmptyRow, ErrorBanner, Field, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { todayIso } from '../format.ts';
import { brlNumber } from '../register/money.ts';

const GROUPINGS: readonly [SalesGrouping, string][] = [
  ['dia', 'Dia'],
  ['sessao', 'Turno (caixa)'],
  ['operador', 'Operador'],
  ['produto', 'Produto'],
  ['metodo', 'Forma de pagamento'],
];

function firstOfMonth(iso: string): string {
  return `${iso.slice(0, 8)}01`;
}

export function ReportsScreen() {
  const { api } = useApp();
  const [de, setDe] = useState(() => firstOfMonth(todayIso()));
  const [ate, setAte] = useState(() => todayIso());
  const [agrupar, setAgrupar] = useState<SalesGrouping>('dia');
  const valid = de !== '' && ate !== '' && de <= ate;
  const report = useLoad(
    () => (valid ? api.reports.sales({ de, ate, agrupar }) : Promise.resolve(null)),
    [api, de, ate, agrupar, valid],
  );
  const data = report.data;
  return (
    <div className="page" data-testid="reports-page">
      <div className="page-head">
        <h1>Relatórios de vendas</h1>
        <div className="actions">
          {valid ? (
            <a
              className="button"
              href={api.reports.salesCsvUrl({ de, ate, agrupar })}
              data-testid="reports-csv"
            >
              Exportar CSV
            </a>
          ) : null}
        </div>
      </div>
      <div className="filters card">
        <Field label="De">
          <DateInput value={de} onChange={setDe} aria-label="De" />
        </Field>
        <Field label="Até" error={valid ? undefined : 'O período termina antes de começar.'}>
          <DateInput value={ate} onChange={setAte} aria-label="Até" />
        </Field>
        <Field label="Agrupar por">
          <select
            value={agrupar}
            aria-label="Agrupar por"
            onChange={(e) => setAgrupar(e.target.value as SalesGrouping)}
          >
            {GROUPINGS.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <ErrorBanner error={report.error} />
      {data !== null && data !== undefined ? (
        <table className="grid" data-testid="reports-table">
          <thead>
            <tr>
              <th>{GROUPINGS.find(([k]) => k === data.agrupar)?.[1] ?? ''}</th>
              <th className="num">Vendas</th>
              {data.agrupar === 'produto' ? <th className="num">Itens</th> : null}
              <th className="num">Total</th>
            </tr>
          </thead>
          <tbody>
            {data.linhas.map((l) => (
              <tr key={l.chave} data-chave={l.chave}>
                <td>{l.rotulo}</td>
                <td className="num">{l.vendas}</td>
                {data.agrupar === 'produto' ? <td className="num">{l.itens ?? ''}</td> : null}
                <td className="num">{brlNumber(l.total)}</td>
              </tr>
            ))}
            <EmptyRow rows={data.linhas} colSpan={4}>
              Nenhuma venda no período.
            </EmptyRow>
            <tr className="total-row">
              <td>Total</td>
              <td />
              {data.agrupar === 'produto' ? <td /> : null}
              <td className="num" data-testid="reports-total">
                {brlNumber(data.total)}
              </td>
            </tr>
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

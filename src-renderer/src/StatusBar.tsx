// The always-visible status line: the authority (online, offline or SVC), notes waiting in the queue and in
// contingency, the terminal's printer, the certificate's days to expiry. Polled every few seconds.
import { useEffect, useState } from 'react';
import type { CompanyStatus } from '../../src-shared/contracts/api-client.ts';
import type { PrinterStatusView, PrinterView } from '../../src-shared/contracts/printers.ts';
import { useApp } from './context.ts';
import { dateBr } from './format.ts';
import { errorMessage, printerStateText } from './messages.ts';

const POLL_MS = 4000;
const REFRESH_EVENT = 'balcao:status-refresh';

/** Asks the status bar to poll now (after a sale, a cancellation, a setting change). */
export function refreshStatus(): void {
  window.dispatchEvent(new Event(REFRESH_EVENT));
}

export function StatusBar() {
  const { api, company, prefs } = useApp();
  const [status, setStatus] = useState<CompanyStatus | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [printer, setPrinter] = useState<{ view: PrinterView; status: PrinterStatusView | null } | null>(
    null,
  );
  const [printerError, setPrinterError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      clearTimeout(timer);
      try {
        const s = await api.companies.status(company.id);
        if (live) {
          setStatus(s);
          setStatusError(null);
        }
      } catch (e) {
        if (live) setStatusError(errorMessage(e));
      }
      try {
        const printers = (await api.printers.list(company.id)).items;
        const chosen =
          printers.find((p) => p.id === prefs.printerId) ?? printers.find((p) => p.padrao) ?? printers[0];
        if (chosen === undefined) {
          if (live) setPrinter(null);
        } else {
          const ps = await api.printers.status(company.id, chosen.id).catch(() => null);
          if (live) setPrinter({ view: chosen, status: ps });
        }
        if (live) setPrinterError(null);
      } catch (e) {
        if (live) setPrinterError(errorMessage(e));
      }
      if (live) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    const onRefresh = () => void poll();
    window.addEventListener(REFRESH_EVENT, onRefresh);
    return () => {
      live = false;
      clearTimeout(timer);
      window.removeEventListener(REFRESH_EVENT, onRefresh);
    };
  }, [api, company.id, prefs.printerId]);

  const authority = status?.autoridade;
  const authorityClass =
    authority === undefined
      ? 'unknown'
      : !authority.online || authority.modo === 'offline'
        ? 'down'
        : authority.modo === 'normal'
          ? 'ok'
          : 'warn';
  const authorityText =
    authority === undefined
      ? (statusError ?? 'verificando…')
      : !authority.online || authority.modo === 'offline'
        ? 'SEFAZ offline · vendas em contingência'
        : authority.modo === 'normal'
          ? 'SEFAZ online'
          : `Contingência ${authority.modo}`;
  const cert = status?.certificado;
  const certClass =
    cert === undefined
      ? 'unknown'
      : cert === null
        ? 'down'
        : cert.diasParaExpirar <= 0
          ? 'down'
          : cert.diasParaExpirar <= 30
            ? 'warn'
            : 'ok';
  const printerOnline = printer?.status?.online;

  return (
    <footer className="status-bar" data-testid="status-bar" aria-label="Barra de situação">
      <span
        className={`pill pill-${(status?.ambiente ?? company.ambiente) === 'producao' ? 'prod' : 'homolog'}`}
      >
        {(status?.ambiente ?? company.ambiente) === 'producao' ? 'PRODUÇÃO' : 'HOMOLOGAÇÃO'}
      </span>
      <span
        className={`status-item s-${authorityClass}`}
        data-testid="status-authority"
        data-online={authority === undefined ? '' : String(authority.online && authority.modo !== 'offline')}
        title={authority?.motivo ?? undefined}
      >
        <i className="dot" /> {authorityText}
      </span>
      <span className="status-item" data-testid="status-queue">
        Fila: <strong data-testid="queue-pending">{status?.fila.pendentes ?? '–'}</strong> a transmitir ·{' '}
        <strong data-testid="queue-contingency">{status?.fila.contingencia ?? '–'}</strong> em contingência
      </span>
      <span
        className={`status-item s-${printer === null ? 'unknown' : printerOnline === true ? 'ok' : printerOnline === false ? 'down' : 'unknown'}`}
        data-testid="status-printer"
      >
        <i className="dot" />{' '}
        {printerError !== null
          ? 'Impressora: indisponível'
          : printer === null
            ? 'Sem impressora'
            : `${printer.view.nome}: ${printerStateText(printer.status)}`}
      </span>
      <span className={`status-item s-${certClass}`} data-testid="status-certificate">
        <i className="dot" />{' '}
        {cert === undefined
          ? 'Certificado: –'
          : cert === null
            ? 'Sem certificado A1'
            : cert.diasParaExpirar <= 0
              ? `Certificado vencido em ${dateBr(cert.validoAte)}`
              : `Certificado: ${cert.diasParaExpirar} dias (até ${dateBr(cert.validoAte)})`}
      </span>
    </footer>
  );
}

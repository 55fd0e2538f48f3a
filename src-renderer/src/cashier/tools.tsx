// The cashier's counter tools, each on one key: price check (a code scanned or typed shows name and price and
// adds nothing), the list of the last receipts to reprint one (↑ ↓ Enter) and cancelling the last NFC-e.
// Reprint and cancel go through withApproval: a caixa's request answered "needs a supervisor" is retried
// with the supervisor's approval once the prompt gives it.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import type { DocumentView } from '../../../src-shared/contracts/api-client.ts';
import { ApiRequestError } from '../../../src-shared/contracts/api-client.ts';
import { Banner, EmptyRow, Modal } from '../components.tsx';
import { useApp } from '../context.ts';
import { brl, brlText, dateTimeBr, quantityBr } from '../format.ts';
import { errorMessage, STATUS_PT } from '../messages.ts';
import { refuseBeep } from './alert-sound.ts';
import { withApproval } from './approval.ts';

/** What a code names: the product and, for a scale label, the quantity and the line total printed on it. */
export interface Resolved {
  product: ProductView;
  quantity: string | null;
  lineCents: bigint | null;
}

/**
 * The message of a failed print: the service's own words when it says why (no printer: 409 sem_impressora),
 * not the generic title of its error code.
 */
export function printErrorMessage(error: unknown): string {
  if (error instanceof ApiRequestError) {
    const code: string = error.body.error;
    if (code === 'sem_impressora' || (error.status === 409 && /impressora/i.test(error.body.message)))
      return error.body.message;
  }
  return errorMessage(error);
}

export function PriceCheckDialog(props: {
  resolve: (code: string) => Promise<Resolved | string>;
  onClose: () => void;
}) {
  const [code, setCode] = useState('');
  const [shown, setShown] = useState<{ code: string; found: Resolved | string } | null>(null);
  const ref = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <Modal title="Consulta de preço (F5)" onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const text = code.trim();
          setCode('');
          if (text === '') {
            props.onClose();
            return;
          }
          void props.resolve(text).then((found) => {
            if (typeof found === 'string') refuseBeep();
            setShown({ code: text, found });
          });
        }}
      >
        <label className="field">
          <span className="field-label">Código ou código de barras</span>
          <input
            ref={ref}
            className="big-input"
            autoComplete="off"
            aria-label="Código para consultar"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </label>
      </form>
      {shown === null ? null : typeof shown.found === 'string' ? (
        <Banner kind="error" testId="price-check">
          {shown.found}
        </Banner>
      ) : (
        <div className="price-check" data-testid="price-check">
          <p className="price-check-name">{shown.found.product.xProd}</p>
          <p className="price-check-price">
            {brlText(shown.found.product.vUnCom)} / {shown.found.product.uCom}
          </p>
          {shown.found.lineCents !== null && shown.found.quantity !== null ? (
            <p className="muted">
              Etiqueta: {quantityBr(shown.found.quantity)} {shown.found.product.uCom} ={' '}
              {brl(shown.found.lineCents)}
            </p>
          ) : null}
          <p className="muted">Não foi adicionado à venda.</p>
        </div>
      )}
      <p className="dialog-keys">
        <kbd>Enter</kbd> consulta · <kbd>Esc</kbd> volta
      </p>
    </Modal>
  );
}

function useRecentNotes(limit: number) {
  const { api } = useApp();
  const [notes, setNotes] = useState<DocumentView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api.nfce.list({ limit }).then(
      (list) => live && setNotes(list.items),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [api, limit]);
  return { notes, error };
}

export function RecentReceiptsDialog(props: { onClose: () => void }) {
  const { api, prefs } = useApp();
  const { notes, error } = useRecentNotes(10);
  const [index, setIndex] = useState(0);
  const [outcome, setOutcome] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  const reprint = useCallback(
    (doc: DocumentView) => {
      setOutcome(null);
      const body = prefs.printerId === null ? {} : { printerId: prefs.printerId };
      withApproval(api, 'reimprimir', (client) => client.nfce.reprint(doc.id, body)).then(
        () => setOutcome({ kind: 'ok', text: `Cupom da NFC-e nº ${doc.numero} enviado para a impressora.` }),
        (e: unknown) => {
          refuseBeep();
          setOutcome({ kind: 'error', text: `Reimpressão: ${printErrorMessage(e)}` });
        },
      );
    },
    [api, prefs.printerId],
  );
  const onKeyDown = (e: KeyboardEvent) => {
    const list = notes ?? [];
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setIndex((i) => (e.key === 'ArrowDown' ? Math.min(list.length - 1, i + 1) : Math.max(0, i - 1)));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const doc = list[index];
      if (doc !== undefined) reprint(doc);
    }
  };
  return (
    <Modal title="Reimprimir cupom (F11)" onClose={props.onClose} wide>
      <div ref={ref} tabIndex={0} onKeyDown={onKeyDown} className="pick-focus" data-testid="recent-receipts">
        {error !== null ? <p className="field-error">{error}</p> : null}
        {notes === null && error === null ? <p className="muted">Carregando…</p> : null}
        <table className="grid pick-list">
          <thead>
            <tr>
              <th className="num">NFC-e</th>
              <th>Emissão</th>
              <th>Situação</th>
              <th className="num">Total</th>
            </tr>
          </thead>
          <tbody>
            {(notes ?? []).map((doc, i) => (
              <tr
                key={doc.id}
                className={i === index ? 'selected' : ''}
                data-doc-id={doc.id}
                onMouseEnter={() => setIndex(i)}
                onClick={() => reprint(doc)}
              >
                <td className="num">{doc.numero}</td>
                <td>{dateTimeBr(doc.dh_emissao)}</td>
                <td>{STATUS_PT[doc.status] ?? doc.status}</td>
                <td className="num">{brlText(doc.valor_total)}</td>
              </tr>
            ))}
            <EmptyRow rows={notes} colSpan={4}>
              Nenhuma NFC-e emitida ainda.
            </EmptyRow>
          </tbody>
        </table>
      </div>
      {outcome !== null ? (
        <Banner kind={outcome.kind} testId="reprint-outcome">
          {outcome.text}
        </Banner>
      ) : null}
      <p className="dialog-keys">
        <kbd>↑</kbd>
        <kbd>↓</kbd> escolhe · <kbd>Enter</kbd> reimprime · <kbd>Esc</kbd> volta
      </p>
    </Modal>
  );
}

/** SEFAZ wants 15 to 255 characters of justification for a cancellation (NT 2012.002 evento 110111). */
const DEFAULT_JUSTIFICATION = 'Venda cancelada a pedido do cliente';

export function CancelLastDialog(props: { onClose: () => void; onCancelled: (doc: DocumentView) => void }) {
  const { api } = useApp();
  const { notes, error } = useRecentNotes(1);
  const last = notes?.[0];
  const [text, setText] = useState(DEFAULT_JUSTIFICATION);
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, [last]);
  const submit = () => {
    if (last === undefined || pending) return;
    const justificativa = text.trim();
    if (justificativa.length < 15 || justificativa.length > 255) {
      setProblem('A justificativa precisa ter de 15 a 255 caracteres.');
      return;
    }
    setPending(true);
    setProblem(null);
    withApproval(api, 'cancelar_venda', (client) => client.documents.cancel(65, last.id, justificativa))
      .then(props.onCancelled, (e: unknown) => {
        refuseBeep();
        setProblem(errorMessage(e));
      })
      .finally(() => setPending(false));
  };
  return (
    <Modal title="Cancelar a última NFC-e (F12)" onClose={props.onClose}>
      {error !== null ? <p className="field-error">{error}</p> : null}
      {notes === null && error === null ? <p className="muted">Carregando…</p> : null}
      {notes !== null && last === undefined ? <p>Nenhuma NFC-e emitida ainda.</p> : null}
      {last !== undefined ? (
        <form
          data-testid="cancel-last"
          data-doc-id={last.id}
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <p>
            NFC-e nº <strong>{last.numero}</strong> · {dateTimeBr(last.dh_emissao)} ·{' '}
            {brlText(last.valor_total)} · {STATUS_PT[last.status] ?? last.status}
          </p>
          <label className="field">
            <span className="field-label">Justificativa (mínimo 15 caracteres)</span>
            <input
              ref={ref}
              className="big-input"
              value={text}
              disabled={pending}
              aria-label="Justificativa do cancelamento"
              onChange={(e) => {
                setProblem(null);
                setText(e.target.value);
              }}
            />
            {problem !== null ? (
              <span className="field-error" role="alert">
                {problem}
              </span>
            ) : null}
          </label>
          {pending ? <Banner kind="info">Cancelando…</Banner> : null}
        </form>
      ) : null}
      <p className="dialog-keys">
        <kbd>Enter</kbd> cancela a nota · <kbd>Esc</kbd> volta
      </p>
    </Modal>
  );
}

// The cashier's dialogs (product search, quantity, price, discount, CPF, customer, cancel): each opens
// with its function key, answers to Enter and closes with Esc, so the mouse is never needed.
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import { isValidCpf, normalizeCpf } from '../../../src-shared/tax-ids.ts';
import { Modal } from '../components.tsx';
import { useApp } from '../context.ts';
import { brl, brlText, maskCpfInput, taxIdBr } from '../format.ts';
import { errorMessage } from '../messages.ts';

/** A one-field dialog: `parse` returns an error text or the accepted value. */
export function PromptDialog<T>(props: {
  title: string;
  label: string;
  initial?: string;
  hint?: string;
  parse: (text: string) => { ok: true; value: T } | { ok: false; error: string };
  onAccept: (value: T) => void;
  onClose: () => void;
  mask?: (text: string) => string;
  inputMode?: 'decimal' | 'numeric' | 'text';
}) {
  const [text, setText] = useState(props.initial ?? '');
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // Before the browser handles another key: the next digit typed goes into this field.
  useLayoutEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);
  const submit = () => {
    const parsed = props.parse(text);
    if (parsed.ok) props.onAccept(parsed.value);
    else setError(parsed.error);
  };
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label className="field">
          <span className="field-label">{props.label}</span>
          <input
            ref={inputRef}
            className="big-input"
            value={text}
            inputMode={props.inputMode ?? 'decimal'}
            aria-label={props.label}
            onChange={(e) => {
              setError(null);
              setText(props.mask === undefined ? e.target.value : props.mask(e.target.value));
            }}
          />
          {error !== null ? (
            <span className="field-error" role="alert">
              {error}
            </span>
          ) : props.hint !== undefined ? (
            <span className="field-hint">{props.hint}</span>
          ) : null}
        </label>
        <p className="dialog-keys">
          <kbd>Enter</kbd> confirma · <kbd>Esc</kbd> volta
        </p>
      </form>
    </Modal>
  );
}

/** Moves a highlighted row with ↑/↓ and picks it with Enter. */
function useListKeys<T>(items: readonly T[], onPick: (item: T) => void) {
  const [index, setIndex] = useState(0);
  useEffect(() => setIndex(0), [items]);
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setIndex((i) => Math.min(items.length - 1, i + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setIndex((i) => Math.max(0, i - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const item = items[index];
      if (item !== undefined) onPick(item);
    }
  };
  return { index, setIndex, onKeyDown };
}

function useSearch<T>(search: (q: string) => Promise<T[]>, minLength: number) {
  const [q, setQ] = useState('');
  const [items, setItems] = useState<T[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (q.trim().length < minLength) {
      setItems([]);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      search(q.trim()).then(
        (found) => live && (setItems(found), setError(null)),
        (e: unknown) => live && setError(errorMessage(e)),
      );
    }, 120);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q, search, minLength]);
  return { q, setQ, items, error };
}

export function ProductSearchDialog(props: { onPick: (p: ProductView) => void; onClose: () => void }) {
  const { api } = useApp();
  const search = useRef((q: string) =>
    api.products.list({ q, limit: 30 }).then((r) => r.data.filter((p) => p.ativo)),
  ).current;
  const { q, setQ, items, error } = useSearch(search, 1);
  const list = useListKeys(items, props.onPick);
  return (
    <Modal title="Buscar produto (F2)" onClose={props.onClose} wide>
      <input
        autoFocus
        className="big-input"
        placeholder="Nome, código ou código de barras"
        aria-label="Buscar produto"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={list.onKeyDown}
      />
      {error !== null ? <p className="field-error">{error}</p> : null}
      <table className="grid pick-list">
        <thead>
          <tr>
            <th>Código</th>
            <th>Descrição</th>
            <th>Un</th>
            <th className="num">Preço</th>
          </tr>
        </thead>
        <tbody>
          {items.map((p, i) => (
            <tr
              key={p.id}
              className={i === list.index ? 'selected' : ''}
              onMouseEnter={() => list.setIndex(i)}
              onClick={() => props.onPick(p)}
            >
              <td>{p.cProd}</td>
              <td>{p.xProd}</td>
              <td>{p.uCom}</td>
              <td className="num">{brlText(p.vUnCom)}</td>
            </tr>
          ))}
          {items.length === 0 && q.trim() !== '' ? (
            <tr>
              <td colSpan={4} className="muted">
                Nenhum produto encontrado.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <p className="dialog-keys">
        <kbd>↑</kbd>
        <kbd>↓</kbd> escolhe · <kbd>Enter</kbd> adiciona · <kbd>Esc</kbd> volta
      </p>
    </Modal>
  );
}

export function CustomerDialog(props: { onPick: (c: CustomerView) => void; onClose: () => void }) {
  const { api } = useApp();
  const search = useRef((q: string) => api.customers.list({ q, limit: 20 }).then((r) => r.data)).current;
  const { q, setQ, items, error } = useSearch(search, 2);
  const list = useListKeys(items, props.onPick);
  return (
    <Modal title="Cliente (F7)" onClose={props.onClose} wide>
      <input
        autoFocus
        className="big-input"
        placeholder="Nome, CPF ou CNPJ"
        aria-label="Buscar cliente"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={list.onKeyDown}
      />
      {error !== null ? <p className="field-error">{error}</p> : null}
      <table className="grid pick-list">
        <thead>
          <tr>
            <th>Nome</th>
            <th>CPF/CNPJ</th>
          </tr>
        </thead>
        <tbody>
          {items.map((c, i) => (
            <tr
              key={c.id}
              className={i === list.index ? 'selected' : ''}
              onMouseEnter={() => list.setIndex(i)}
              onClick={() => props.onPick(c)}
            >
              <td>{c.xNome}</td>
              <td>{taxIdBr(c.cpf ?? c.cnpj ?? c.idEstrangeiro)}</td>
            </tr>
          ))}
          {items.length === 0 && q.trim().length >= 2 ? (
            <tr>
              <td colSpan={2} className="muted">
                Nenhum cliente encontrado.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <p className="dialog-keys">
        <kbd>↑</kbd>
        <kbd>↓</kbd> escolhe · <kbd>Enter</kbd> identifica · <kbd>Esc</kbd> volta
      </p>
    </Modal>
  );
}

export function CpfDialog(props: {
  initial: string | null;
  onAccept: (cpf: string | null) => void;
  onClose: () => void;
}) {
  return (
    <PromptDialog<string | null>
      title="CPF na nota (F6)"
      label="CPF do consumidor"
      hint="Deixe vazio para tirar o CPF da nota."
      initial={props.initial === null ? '' : maskCpfInput(props.initial)}
      mask={maskCpfInput}
      inputMode="numeric"
      parse={(text) => {
        const cpf = normalizeCpf(text);
        if (cpf === '') return { ok: true, value: null };
        return isValidCpf(cpf)
          ? { ok: true, value: cpf }
          : { ok: false, error: 'CPF inválido: confira os dígitos.' };
      }}
      onAccept={props.onAccept}
      onClose={props.onClose}
    />
  );
}

export function CancelSaleDialog(props: { total: bigint; onConfirm: () => void; onClose: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <Modal title="Cancelar a venda?" onClose={props.onClose}>
      <p>Os itens desta venda ({brl(props.total)}) serão descartados. Nenhuma nota foi emitida para ela.</p>
      <div className="actions">
        <button ref={ref} type="button" className="danger" onClick={props.onConfirm}>
          Enter · Cancelar venda
        </button>
        <button type="button" onClick={props.onClose}>
          Esc · Voltar
        </button>
      </div>
    </Modal>
  );
}

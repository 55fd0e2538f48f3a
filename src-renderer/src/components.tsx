// Small shared pieces: form fields that show the API's field errors, banners, dialogs, async loading.
import { useCallback, useEffect, useRef, useState, type ReactNode, type Ref } from 'react';
import { dateBr, parseDateBr } from './format.ts';
import { errorMessage, fieldErrors } from './messages.ts';

export function Field(props: {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactNode;
  wide?: boolean;
}) {
  return (
    <label
      className={`field${props.wide === true ? ' wide' : ''}${props.error !== undefined ? ' invalid' : ''}`}
    >
      <span className="field-label">{props.label}</span>
      {props.children}
      {props.error !== undefined ? (
        <span className="field-error" role="alert">
          {props.error}
        </span>
      ) : props.hint !== undefined ? (
        <span className="field-hint">{props.hint}</span>
      ) : null}
    </label>
  );
}

/** Whether a record of the catalogue or the staff (product, service, operator) is in use. */
export function ActiveField(props: {
  value: boolean;
  onChange: (ativo: boolean) => void;
  error?: string | undefined;
}) {
  return (
    <Field label="Situação" error={props.error}>
      <select
        value={props.value ? '1' : '0'}
        aria-label="Situação"
        onChange={(e) => props.onChange(e.target.value === '1')}
      >
        <option value="1">Ativo</option>
        <option value="0">Inativo</option>
      </select>
    </Field>
  );
}

export function Banner(props: {
  kind: 'error' | 'ok' | 'info' | 'warn';
  children: ReactNode;
  testId?: string;
}) {
  return (
    <div
      className={`banner banner-${props.kind}`}
      role={props.kind === 'error' ? 'alert' : 'status'}
      data-testid={props.testId}
    >
      {props.children}
    </div>
  );
}

/** The banner of a failed request, with its field details when the screen has no field for them. */
export function ErrorBanner(props: { error: unknown; extra?: string[] }) {
  if (props.error === null || props.error === undefined) return null;
  return (
    <Banner kind="error" testId="error-banner">
      <strong>{errorMessage(props.error)}</strong>
      {props.extra !== undefined && props.extra.length > 0 ? (
        <ul>
          {props.extra.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      ) : null}
    </Banner>
  );
}

export function Modal(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const { onClose } = props;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className={`modal${props.wide === true ? ' modal-wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-label={props.title}
      >
        <header className="modal-head">
          <h2>{props.title}</h2>
          <button type="button" className="ghost" onClick={onClose} aria-label="Fechar">
            Esc ✕
          </button>
        </header>
        <div className="modal-body">{props.children}</div>
      </div>
    </div>
  );
}

/** Loads `load()` on mount and whenever `deps` change; `reload()` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  // The caller lists what `load` depends on, as with useEffect.
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const value = await run();
      if (mine === seq.current) {
        setData(value);
        setError(null);
      }
    } catch (e) {
      if (mine === seq.current) setError(e);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload, setData };
}

/** A submit handler with its pending flag, error and the error's fields in pt-BR. */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setPending(true);
    setError(null);
    try {
      return await action();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setPending(false);
    }
  }, []);
  return { pending, error, fields: fieldErrors(error), run, setError };
}

/** The ✕ that takes a row out of a form's table (an item, a component, an observation). */
export function RemoveRowButton(props: { label: string; onClick: () => void; disabled?: boolean }) {
  return (
    <button
      type="button"
      className="small ghost"
      aria-label={props.label}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      ✕
    </button>
  );
}

export function StatusBadge(props: { status: string; label?: string }) {
  return <span className={`badge badge-${props.status}`}>{props.label ?? props.status}</span>;
}

export function Pager(props: {
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  return (
    <nav className="pager" aria-label="Paginação">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        ‹ Anterior
      </button>
      <span>
        Página {props.page} de {pages} · {props.total} {props.total === 1 ? 'registro' : 'registros'}
      </span>
      <button type="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Próxima ›
      </button>
    </nav>
  );
}

/**
 * The row a table shows in place of its rows when it has none: nothing while `rows` is still loading
 * (null or undefined), so an empty list is never announced before its answer.
 */
export function EmptyRow(props: {
  rows: readonly unknown[] | null | undefined;
  colSpan: number;
  children: ReactNode;
}) {
  if (props.rows === null || props.rows === undefined || props.rows.length > 0) return null;
  return (
    <tr>
      <td colSpan={props.colSpan} className="muted">
        {props.children}
      </td>
    </tr>
  );
}

/** Saves text as a file the browser downloads (XML of a note). */
export function downloadText(fileName: string, text: string, type = 'application/xml'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A fresh Idempotency-Key for one attempt of one action. */
export function newIdempotencyKey(prefix: string): string {
  // getRandomValues also works where randomUUID does not (plain http on a LAN address is not a secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * A date typed as dd/mm/aaaa whatever the browser's own locale (a native date input follows the operating
 * system's format); `value` and `onChange` speak ISO (aaaa-mm-dd) as the API does, '' when empty.
 */
export function DateInput(props: { value: string; onChange: (iso: string) => void; 'aria-label': string }) {
  const [text, setText] = useState(props.value === '' ? '' : dateBr(props.value));
  useEffect(() => {
    setText((current) =>
      parseDateBr(current) === props.value ? current : props.value === '' ? '' : dateBr(props.value),
    );
  }, [props.value]);
  return (
    <input
      value={text}
      placeholder="dd/mm/aaaa"
      inputMode="numeric"
      aria-label={props['aria-label']}
      onChange={(e) => {
        const digits = e.target.value.replace(/\D/g, '').slice(0, 8);
        const masked = [digits.slice(0, 2), digits.slice(2, 4), digits.slice(4)]
          .filter((p) => p !== '')
          .join('/');
        setText(masked);
        if (masked === '') props.onChange('');
        else {
          const iso = parseDateBr(masked);
          if (iso !== null) props.onChange(iso);
        }
      }}
    />
  );
}

/** A file picker labelled in Portuguese whatever the browser's language (the native one follows the OS). */
export function FileInput(props: {
  accept: string;
  'aria-label': string;
  onFile: (file: File | null) => void;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const [name, setName] = useState<string | null>(null);
  return (
    <span className="file-input">
      <label className="button">
        Escolher arquivo…
        <input
          ref={props.inputRef}
          type="file"
          accept={props.accept}
          aria-label={props['aria-label']}
          onChange={(e) => {
            const file = e.target.files?.[0] ?? null;
            setName(file?.name ?? null);
            props.onFile(file);
          }}
        />
      </label>
      <span className="file-name">{name ?? 'nenhum arquivo escolhido'}</span>
    </span>
  );
}

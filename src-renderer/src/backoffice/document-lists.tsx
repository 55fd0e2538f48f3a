// What the fiscal document lists (NF-e/NFC-e, CT-e, NFS-e, DC-e) share: filters kept in the address, the
// status and period filters, the pages, and the dialog that voids a range of numbers.
import { useState, type ReactNode } from 'react';
import { Banner, DateInput, ErrorBanner, Field, Modal, Pager, useAction } from '../components.tsx';
import { STATUS_PT, otherDetails } from '../messages.ts';
import { navigate } from '../router.ts';

/** The page the address asks for: page 1 when absent or not a number. */
export function listPage(q: URLSearchParams): number {
  return Math.max(1, Number(q.get('page') ?? '1') || 1);
}

/** The status and creation period (`from`/`to`) of a §4.6 list (CT-e, NFS-e) as the address keeps them. */
export type PeriodFilter = { status: string; from: string; to: string };

export function periodFilter(q: URLSearchParams): PeriodFilter {
  return { status: q.get('status') ?? '', from: q.get('from') ?? '', to: q.get('to') ?? '' };
}

/** The filter as the API's query: an empty filter is left out, not sent empty. */
export function periodQuery(filter: PeriodFilter): { status?: string; from?: string; to?: string } {
  return {
    ...(filter.status === '' ? {} : { status: filter.status }),
    ...(filter.from === '' ? {} : { from: filter.from }),
    ...(filter.to === '' ? {} : { to: filter.to }),
  };
}

/** The status and period props of `ListFilters` for a §4.6 list: each change goes to the address through `setFilter`. */
export function periodFilterProps(filter: PeriodFilter, setFilter: (changes: Partial<PeriodFilter>) => void) {
  return {
    status: filter.status,
    onStatus: (status: string) => setFilter({ status }),
    from: filter.from,
    to: filter.to,
    onFrom: (iso: string) => setFilter({ from: iso }),
    onTo: (iso: string) => setFilter({ to: iso }),
  };
}

/** The pages under a §4.6 list (`meta` of its answer), once the list has answered. */
export function MetaPager(props: {
  page: number;
  meta: { limit: number; total: number } | undefined;
  onPage: (page: number) => void;
}) {
  if (props.meta === undefined) return null;
  return (
    <Pager page={props.page} pageSize={props.meta.limit} total={props.meta.total} onPage={props.onPage} />
  );
}

/**
 * The list's address after `changes`: a filter change goes back to page 1, and empty filters and page 1
 * stay out of the address so that a plain list has a plain link.
 */
export function listPath(
  base: string,
  filter: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string | number>>,
): string {
  const next = new URLSearchParams();
  const merged: Record<string, string | number> = { ...filter, page: 1, ...changes };
  for (const [k, v] of Object.entries(merged))
    if (v !== '' && !(k === 'page' && v === 1)) next.set(k, String(v));
  const s = next.toString();
  return `${base}${s === '' ? '' : `?${s}`}`;
}

export function StatusFilter(props: {
  value: string;
  statuses: readonly string[];
  onChange: (status: string) => void;
}) {
  return (
    <Field label="Situação">
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)} aria-label="Situação">
        <option value="">Todas</option>
        {props.statuses.map((s) => (
          <option key={s} value={s}>
            {STATUS_PT[s]}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * The filters card of a document list: the kind's own fields first (the NF model), the status, the period
 * ("… de" / "até") and the link back to the unfiltered list.
 */
export function ListFilters(props: {
  leading?: ReactNode;
  status: string;
  statuses: readonly string[];
  onStatus: (status: string) => void;
  /** "Criadas de", "Emitidas de": the period's first label names what the dates are. */
  fromLabel: string;
  from: string;
  to: string;
  onFrom: (iso: string) => void;
  onTo: (iso: string) => void;
  /** The list's plain address, which "Limpar filtros" opens. */
  base: string;
}) {
  return (
    <form className="filters card" onSubmit={(e) => e.preventDefault()} aria-label="Filtros">
      {props.leading}
      <StatusFilter value={props.status} statuses={props.statuses} onChange={props.onStatus} />
      <Field label={props.fromLabel}>
        <DateInput value={props.from} onChange={props.onFrom} aria-label="Data inicial" />
      </Field>
      <Field label="até">
        <DateInput value={props.to} onChange={props.onTo} aria-label="Data final" />
      </Field>
      <button type="button" className="ghost" onClick={() => navigate(props.base)}>
        Limpar filtros
      </button>
    </form>
  );
}

export type RangeForm = { serie: string; numeroInicial: string; numeroFinal: string; justificativa: string };

type FieldSetter<F> = (k: keyof F & string) => (e: { target: { value: string } }) => void;

/**
 * The inutilização of a range: its fields, then what was done. `send` asks the API and words its answer;
 * a failed request stays in the form with each field's message beside it.
 */
export function VoidRangeDialog<F extends RangeForm>(props: {
  title: string;
  initial: F;
  intro?: ReactNode;
  /** The kind's own fields before the série (the NF model), and their names for the error banner. */
  leading?: (form: F, set: FieldSetter<F>, fields: Readonly<Record<string, string>>) => ReactNode;
  leadingFields?: readonly string[];
  send: (form: F) => Promise<{ ok: boolean; text: string }>;
  onClose: () => void;
  onDone: () => void;
}) {
  const [form, setForm] = useState<F>(props.initial);
  const action = useAction();
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const set: FieldSetter<F> = (k) => (e) => setForm((current) => ({ ...current, [k]: e.target.value }));
  const submit = async () => {
    const answer = await action.run(() => props.send(form));
    if (answer !== undefined) setResult(answer);
  };
  return (
    <Modal title={props.title} onClose={result === null ? props.onClose : props.onDone}>
      {result !== null ? (
        <>
          <Banner kind={result.ok ? 'ok' : 'error'} testId="void-result">
            {result.text}
          </Banner>
          <button type="button" onClick={props.onDone}>
            Fechar
          </button>
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          {props.intro}
          <RangeFields
            form={form}
            set={set}
            fields={action.fields}
            leading={props.leading?.(form, set, action.fields)}
          />
          <ErrorBanner
            error={action.error}
            extra={otherDetails(action.error, [
              ...(props.leadingFields ?? []),
              'serie',
              'numeroInicial',
              'numeroFinal',
              'justificativa',
            ])}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={action.pending}>
              Inutilizar
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}

/** Série, first and last number and the justification of an inutilização, each with the API's message. */
function RangeFields(props: {
  form: RangeForm;
  set: (k: keyof RangeForm) => (e: { target: { value: string } }) => void;
  fields: Readonly<Record<string, string>>;
  /** Fields before the série in the same grid (the NF model). */
  leading?: ReactNode;
}) {
  const { form, set, fields: f } = props;
  return (
    <>
      <div className="form-grid">
        {props.leading}
        <Field label="Série" error={f['serie']}>
          <input value={form.serie} onChange={set('serie')} inputMode="numeric" />
        </Field>
        <Field label="Número inicial" error={f['numeroInicial']}>
          <input value={form.numeroInicial} onChange={set('numeroInicial')} inputMode="numeric" />
        </Field>
        <Field label="Número final" error={f['numeroFinal']}>
          <input value={form.numeroFinal} onChange={set('numeroFinal')} inputMode="numeric" />
        </Field>
      </div>
      <Field label="Justificativa (15 a 255 caracteres)" error={f['justificativa']}>
        <textarea value={form.justificativa} onChange={set('justificativa')} />
      </Field>
    </>
  );
}

/** The range's numbers as the API reads them: an empty last number voids the first alone. */
export function rangeNumbers(form: RangeForm): { serie: number; numeroInicial: number; numeroFinal: number } {
  return {
    serie: Number(form.serie),
    numeroInicial: Number(form.numeroInicial),
    numeroFinal: Number(form.numeroFinal === '' ? form.numeroInicial : form.numeroFinal),
  };
}

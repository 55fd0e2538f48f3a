// What the fiscal document lists (NF-e/NFC-e, CT-e) share: filters kept in the address, the status filter,
// and the fields of a number range to void.
import type { ReactNode } from 'react';
import { Field } from '../components.tsx';
import { STATUS_PT } from '../messages.ts';

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

export type RangeForm = { serie: string; numeroInicial: string; numeroFinal: string; justificativa: string };

/** Série, first and last number and the justification of an inutilização, each with the API's message. */
export function RangeFields(props: {
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

// What the kinds' settings forms (Settings › NFS-e, Settings › DC-e) share when they save: the "saved" banner
// that a later change takes back, and the footer with the errors no field shows, that banner and the button.
import { useState, type FormEvent } from 'react';
import { Banner, ErrorBanner, useAction } from '../components.tsx';
import { otherDetails } from '../messages.ts';

/**
 * A settings form's save: `submit(request)` saves and hands the answer to `onSaved`; `changed(set)` (a value)
 * and `edit(set)` (an input's event) mark a change.
 */
export function useSettingsSave<V>(onSaved: (view: V) => void) {
  const [saved, setSaved] = useState(false);
  const save = useAction();
  // A change after a save takes back the "saved" banner: it no longer describes the form.
  const changed =
    <T,>(set: (value: T) => void) =>
    (value: T): void => {
      setSaved(false);
      set(value);
    };
  const edit = (set: (value: string) => void) => (e: { target: { value: string } }) =>
    changed(set)(e.target.value);
  const submit = (request: () => Promise<V>) => (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void save.run(request).then((view) => {
      if (view === undefined) return;
      setSaved(true);
      onSaved(view);
    });
  };
  return { save, saved, changed, edit, submit };
}

/** Under the fields: the errors of the other fields, the "saved" banner and "Salvar". */
export function SettingsSaveFooter(props: {
  save: ReturnType<typeof useAction>;
  saved: boolean;
  /** The fields the form shows beside their input: their errors stay out of the banner. */
  fields: readonly string[];
  /** The kind's prefix of the test ids (`nfse-settings` → nfse-settings-saved, nfse-settings-save). */
  testId: string;
  savedText: string;
}) {
  return (
    <>
      <ErrorBanner error={props.save.error} extra={otherDetails(props.save.error, props.fields)} />
      {props.saved ? (
        <Banner kind="ok" testId={`${props.testId}-saved`}>
          {props.savedText}
        </Banner>
      ) : null}
      <button
        type="submit"
        className="primary"
        disabled={props.save.pending}
        data-testid={`${props.testId}-save`}
      >
        Salvar
      </button>
    </>
  );
}

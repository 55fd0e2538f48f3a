// What the fiscal document pages (NF-e/NFC-e, CT-e, NFS-e) share in their dialogs: the text of a
// justification or correction with its running count, and the deletion of a draft.
import type { ReactNode } from 'react';
import { ErrorBanner, Field, Modal, useAction } from '../components.tsx';
import { otherDetails } from '../messages.ts';

/**
 * A free text the authority bounds in length (justificativa, correção): the count under it is of the
 * trimmed text, the one the API measures.
 */
export function CountedText(props: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  error: string | undefined;
}) {
  return (
    <>
      <Field label={props.label} error={props.error}>
        <textarea
          autoFocus
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          aria-label={props.label}
        />
      </Field>
      <p className="field-hint">{props.value.trim().length} caracteres</p>
    </>
  );
}

/** The deletion of a draft: what it means for the kind, then `remove`; a refusal stays in the dialog. */
export function DeleteDraftDialog(props: {
  title: string;
  children: ReactNode;
  remove: () => Promise<unknown>;
  onClose: () => void;
  onDone: () => void;
}) {
  const action = useAction();
  return (
    <Modal title={props.title} onClose={props.onClose}>
      {props.children}
      <ErrorBanner error={action.error} extra={otherDetails(action.error, [])} />
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={action.pending}
          onClick={() =>
            void action
              .run(async () => {
                await props.remove();
                return true;
              })
              .then((ok) => {
                if (ok === true) props.onDone();
              })
          }
        >
          Excluir
        </button>
        <button type="button" onClick={props.onClose}>
          Voltar
        </button>
      </div>
    </Modal>
  );
}

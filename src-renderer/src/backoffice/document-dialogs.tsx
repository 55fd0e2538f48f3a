// What the fiscal document pages (NF-e/NFC-e, CT-e, NFS-e, DC-e) share in their dialogs: the text of a
// justification or correction with its running count, the cancellation by a justification, and the
// deletion of a draft.
import { useState, type ReactNode } from 'react';
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

/**
 * The cancellation of an authorized document by its justification (15 to 255 characters): what the kind
 * allows first (`children`), then `cancel` with the text as typed; a refusal stays in the dialog, the
 * justification's message beside it.
 */
export function JustifiedCancelDialog<A>(props: {
  title: string;
  /** The submit button's words ("Cancelar CT-e"). */
  submitLabel: string;
  testId?: string;
  children: ReactNode;
  cancel: (justificativa: string) => Promise<A>;
  onClose: () => void;
  onDone: (answer: A) => void;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <form
        {...(props.testId === undefined ? {} : { 'data-testid': props.testId })}
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() => props.cancel(text))
            .then((answer) => {
              if (answer !== undefined) props.onDone(answer);
            });
        }}
      >
        {props.children}
        <CountedText
          label="Justificativa (15 a 255 caracteres)"
          value={text}
          onChange={setText}
          error={action.fields['justificativa']}
        />
        <ErrorBanner error={action.error} extra={otherDetails(action.error, ['justificativa'])} />
        <div className="actions">
          <button type="submit" className="danger" disabled={action.pending}>
            {props.submitLabel}
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
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

// The two ways a document form saves, the same for every kind: the form's submit saves and sends to the
// authority, the second button keeps a draft; then the saved document's page opens.
import { navigate } from '../router.ts';

/**
 * After the form saved its document: `send` it when asked, then open its page at `path`. A refused send is
 * shown (and retried) there (`?envio=falhou`), never by saving a second document from the form.
 */
export async function openSaved(path: string, send: (() => Promise<unknown>) | null): Promise<void> {
  const sentOk =
    send === null
      ? true
      : await send().then(
          () => true,
          () => false,
        );
  navigate(`${path}${sentOk ? '' : '?envio=falhou'}`);
}

export function SaveActions(props: {
  pending: boolean;
  onDraft: () => void;
  /** The submit's text, when the authority is not the SEFAZ (the NFS-e goes to the national environment). */
  sendLabel?: string;
  draftLabel?: string;
}) {
  return (
    <div className="actions">
      <button type="submit" className="primary" disabled={props.pending}>
        {props.pending ? 'Enviando…' : (props.sendLabel ?? 'Salvar e enviar à SEFAZ')}
      </button>
      <button type="button" onClick={props.onDraft} disabled={props.pending}>
        {props.draftLabel ?? 'Salvar rascunho'}
      </button>
    </div>
  );
}

// The two ways a document form saves, the same for every kind: the form's submit saves and sends to the
// authority, the second button keeps a draft.
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

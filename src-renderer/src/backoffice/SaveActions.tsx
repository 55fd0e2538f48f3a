// The two ways a document form saves, the same for every kind: the form's submit saves and sends to the
// authority, the second button keeps a draft.
export function SaveActions(props: { pending: boolean; onDraft: () => void }) {
  return (
    <div className="actions">
      <button type="submit" className="primary" disabled={props.pending}>
        {props.pending ? 'Enviando…' : 'Salvar e enviar à SEFAZ'}
      </button>
      <button type="button" onClick={props.onDraft} disabled={props.pending}>
        Salvar rascunho
      </button>
    </div>
  );
}

// The cancellation of an authorized NFS-e (POST /v1/nfse/:id/cancel): the reason code of §2.8 (1 issue
// error, 2 service not rendered, 3 duplicate note) and the justification, each with the API's message.
import { useState } from 'react';
import type { NfseCancelAnswer, NfseView } from '../../../src-shared/contracts/nfse-view.ts';
import { ErrorBanner, Modal, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { otherDetails } from '../messages.ts';
import { CountedText } from './document-dialogs.tsx';

export const CANCEL_REASONS: readonly { codigo: 1 | 2 | 3; label: string }[] = [
  { codigo: 1, label: '1 – Erro na emissão' },
  { codigo: 2, label: '2 – Serviço não prestado' },
  { codigo: 3, label: '3 – Nota em duplicidade' },
];

export function NfseCancelDialog(props: {
  nfse: Pick<NfseView, 'id' | 'numero_nfse'>;
  onClose: () => void;
  onDone: (answer: NfseCancelAnswer) => void;
}) {
  const { api } = useApp();
  const [codigo, setCodigo] = useState<1 | 2 | 3 | null>(null);
  const [text, setText] = useState('');
  const action = useAction();
  const label = 'Justificativa (15 a 255 caracteres)';
  // The reason is a choice: asked for here, before anything is sent.
  const [noReason, setNoReason] = useState(false);
  const f = action.fields;
  const reasonError = f['codigo_motivo'] ?? (noReason && codigo === null ? 'escolha o motivo' : undefined);
  return (
    <Modal title={`Cancelar NFS-e nº ${props.nfse.numero_nfse ?? ''}`} onClose={props.onClose}>
      <form
        data-testid="nfse-cancel"
        onSubmit={(e) => {
          e.preventDefault();
          if (codigo === null) {
            setNoReason(true);
            return;
          }
          void action
            .run(() => api.nfse.cancel(props.nfse.id, { codigo_motivo: codigo, justificativa: text.trim() }))
            .then((answer) => {
              if (answer !== undefined) props.onDone(answer);
            });
        }}
      >
        <fieldset className="radios" aria-label="Motivo do cancelamento">
          <legend>Motivo</legend>
          {CANCEL_REASONS.map((r) => (
            <label key={r.codigo}>
              <input
                type="radio"
                name="codigo_motivo"
                checked={codigo === r.codigo}
                onChange={() => setCodigo(r.codigo)}
              />{' '}
              {r.label}
            </label>
          ))}
          {reasonError !== undefined ? (
            <span className="field-error" role="alert">
              {reasonError}
            </span>
          ) : null}
        </fieldset>
        <CountedText label={label} value={text} onChange={setText} error={f['justificativa']} />
        <ErrorBanner
          error={action.error}
          extra={otherDetails(action.error, ['codigo_motivo', 'justificativa'])}
        />
        <div className="actions">
          <button type="submit" className="danger" disabled={action.pending}>
            Cancelar NFS-e
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

// The cancellation of an authorized DC-e (POST /v1/dce/:id/cancel, event 110111): the justification of 15
// to 255 characters, within the deadline counted from the authorization; a refusal (the deadline past, cStat
// 501) stays in the dialog with the authority's words.
import { useState } from 'react';
import type { DceCancelAnswer, DceView } from '../../../src-shared/contracts/dce-view.ts';
import { DCE_CANCEL_DEADLINE_HOURS } from '../../../src-shared/tables/dce-codes.ts';
import { ErrorBanner, Modal, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { otherDetails } from '../messages.ts';
import { CountedText } from './document-dialogs.tsx';

export function DceCancelDialog(props: {
  dce: Pick<DceView, 'id' | 'numero'>;
  onClose: () => void;
  onDone: (answer: DceCancelAnswer) => void;
}) {
  const { api } = useApp();
  const [text, setText] = useState('');
  const action = useAction();
  return (
    <Modal title={`Cancelar DC-e nº ${props.dce.numero}`} onClose={props.onClose}>
      <form
        data-testid="dce-cancel"
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() => api.dce.cancel(props.dce.id, { justificativa: text.trim() }))
            .then((answer) => {
              if (answer !== undefined) props.onDone(answer);
            });
        }}
      >
        <p className="muted small">
          A DC-e pode ser cancelada em até {DCE_CANCEL_DEADLINE_HOURS} horas da autorização, antes do início
          do transporte.
        </p>
        <CountedText
          label="Justificativa (15 a 255 caracteres)"
          value={text}
          onChange={setText}
          error={action.fields['justificativa']}
        />
        <ErrorBanner error={action.error} extra={otherDetails(action.error, ['justificativa'])} />
        <div className="actions">
          <button type="submit" className="danger" disabled={action.pending}>
            Cancelar DC-e
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

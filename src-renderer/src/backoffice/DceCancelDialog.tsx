// The cancellation of an authorized DC-e (POST /v1/dce/:id/cancel, event 110111): the justification of 15
// to 255 characters, within the deadline counted from the authorization; a refusal (the deadline past, cStat
// 501) stays in the dialog with the authority's words.
import type { DceCancelAnswer, DceView } from '../../../src-shared/contracts/dce-view.ts';
import { DCE_CANCEL_DEADLINE_HOURS } from '../../../src-shared/tables/dce-codes.ts';
import { useApp } from '../context.ts';
import { JustifiedCancelDialog } from './document-dialogs.tsx';

export function DceCancelDialog(props: {
  dce: Pick<DceView, 'id' | 'numero'>;
  onClose: () => void;
  onDone: (answer: DceCancelAnswer) => void;
}) {
  const { api } = useApp();
  return (
    <JustifiedCancelDialog
      title={`Cancelar DC-e nº ${props.dce.numero}`}
      submitLabel="Cancelar DC-e"
      testId="dce-cancel"
      cancel={(text) => api.dce.cancel(props.dce.id, { justificativa: text.trim() })}
      onClose={props.onClose}
      onDone={props.onDone}
    >
      <p className="muted small">
        A DC-e pode ser cancelada em até {DCE_CANCEL_DEADLINE_HOURS} horas da autorização, antes do início do
        transporte.
      </p>
    </JustifiedCancelDialog>
  );
}

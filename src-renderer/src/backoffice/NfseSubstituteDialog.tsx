// The substitution of an authorized NFS-e (POST /v1/nfse/:id/substituir, §2.8 substitute body): the new
// note's service, description and value start as the old one's, with the reason code of the layout
// (TSCodJustSubst) and its text; the answer is a draft, or a note already queued with `sendImmediate`.
import { useState } from 'react';
import type { NfseSubstituteBody } from '../../../src-shared/contracts/api-client.ts';
import type { NfseView } from '../../../src-shared/contracts/nfse-view.ts';
import { ErrorBanner, Field, Modal, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { otherDetails } from '../messages.ts';
import { wireAmount } from './cte-form-model.ts';
import { amountToInput, serviceCodeProblem } from './nfse-form-model.ts';
import { NationalCodeInput, ServiceValueInput } from './nfse-fields.tsx';

/** cMotivo of the substitution (TSCodJustSubst, DPS layout 1.01). */
export const SUBSTITUTION_REASONS: readonly { code: string; label: string }[] = [
  { code: '01', label: '01 – Desenquadramento do Simples Nacional' },
  { code: '02', label: '02 – Enquadramento no Simples Nacional' },
  { code: '03', label: '03 – Inclusão retroativa de imunidade/isenção' },
  { code: '04', label: '04 – Exclusão retroativa de imunidade/isenção' },
  { code: '05', label: '05 – Rejeição pelo tomador ou intermediário' },
  { code: '99', label: '99 – Outros' },
];

const SHOWN = ['codigoServico', 'descricao', 'valorServico', 'cMotivo', 'xMotivo', 'sendImmediate'];

export function NfseSubstituteDialog(props: {
  nfse: NfseView;
  onClose: () => void;
  onDone: (created: { id: string }) => void;
}) {
  const { api } = useApp();
  const n = props.nfse;
  const [form, setForm] = useState({
    codigo: n.codigo_tributacao_nacional,
    descricao: n.descricao_servico,
    valor: amountToInput(n.valor_servico),
    cMotivo: '99',
    xMotivo: '',
    sendImmediate: false,
  });
  const action = useAction();
  const f = action.fields;
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) => setForm((s) => ({ ...s, [k]: v }));

  const submit = async () => {
    const xMotivo = form.xMotivo.trim();
    const body: NfseSubstituteBody = {
      codigoServico: form.codigo.trim(),
      descricao: form.descricao.trim(),
      valorServico: wireAmount(form.valor),
      cMotivo: form.cMotivo,
      ...(xMotivo === '' ? {} : { xMotivo }),
      sendImmediate: form.sendImmediate,
    };
    const created = await action.run(() => api.nfse.substitute(n.id, body));
    if (created !== undefined) props.onDone(created);
  };

  return (
    <Modal title={`Substituir NFS-e nº ${n.numero_nfse ?? ''}`} onClose={props.onClose} wide>
      <form
        data-testid="nfse-substitute"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <p className="muted">
          A nova NFS-e nasce como rascunho ligado a esta; quando o ambiente nacional a autorizar, esta passa a
          “Substituída”.
        </p>
        <div className="form-grid">
          <Field
            label="Código de tributação nacional"
            error={f['codigoServico'] ?? serviceCodeProblem(form.codigo) ?? undefined}
          >
            <NationalCodeInput value={form.codigo} onChange={(codigo) => set('codigo', codigo)} />
          </Field>
          <Field label="Valor do serviço (R$)" error={f['valorServico']}>
            <ServiceValueInput value={form.valor} onChange={(valor) => set('valor', valor)} />
          </Field>
          <Field label="Motivo da substituição" error={f['cMotivo']}>
            <select
              value={form.cMotivo}
              onChange={(e) => set('cMotivo', e.target.value)}
              aria-label="Motivo da substituição"
            >
              {SUBSTITUTION_REASONS.map((r) => (
                <option key={r.code} value={r.code}>
                  {r.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <Field label="Descrição do serviço" error={f['descricao']} wide>
          <textarea
            rows={3}
            value={form.descricao}
            onChange={(e) => set('descricao', e.target.value)}
            aria-label="Descrição do serviço"
          />
        </Field>
        <Field label="Descrição do motivo (15 a 255 caracteres)" error={f['xMotivo']} wide>
          <textarea
            value={form.xMotivo}
            onChange={(e) => set('xMotivo', e.target.value)}
            aria-label="Descrição do motivo"
          />
        </Field>
        <label className="check">
          <input
            type="checkbox"
            checked={form.sendImmediate}
            onChange={(e) => set('sendImmediate', e.target.checked)}
          />{' '}
          Enviar a nova NFS-e ao ambiente nacional agora
        </label>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, SHOWN)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Substituir NFS-e
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

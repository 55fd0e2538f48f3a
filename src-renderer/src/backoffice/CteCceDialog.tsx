// The CC-e (event 110110) of a CT-e: free text (the service writes it as the observation compl/xObs) or the
// fields to correct (group, field, new value), the event's sequence, and the fields a CC-e may not touch
// refused here with the same table the service and the authority apply.
import { useState } from 'react';
import type { CteView } from '../../../src-shared/contracts/cte-view.ts';
import { cteCceForbidden, type CceForbiddenReason } from '../../../src-shared/tables/cte-cce-forbidden.ts';
import { ErrorBanner, Field, Modal, useAction } from '../components.tsx';
import { useApp } from '../context.ts';
import { otherDetails } from '../messages.ts';
import { CountedText } from './document-dialogs.tsx';

const REASON_PT: Readonly<Record<CceForbiddenReason, string>> = {
  tax: 'valor que determina o imposto ou a prestação',
  party: 'identificação de uma das partes (CNPJ, CPF ou IE)',
  date: 'data de emissão ou da prestação',
  key: 'campo da chave de acesso',
};

interface Row {
  key: number;
  grupo: string;
  campo: string;
  valor: string;
  item: string;
}

let rowKey = 0;
const emptyRow = (): Row => ({ key: ++rowKey, grupo: '', campo: '', valor: '', item: '' });

/** Why a row may not be sent, in Portuguese; null when the table allows it. */
export function forbiddenText(grupo: string, campo: string): string | null {
  if (grupo.trim() === '' || campo.trim() === '') return null;
  const rule = cteCceForbidden(grupo, campo);
  return rule === undefined ? null : `a CC-e não corrige ${REASON_PT[rule.reason]}`;
}

export function CteCceDialog(props: { cte: CteView; onClose: () => void; onDone: () => void }) {
  const { api } = useApp();
  const used = props.cte.eventos.filter((e) => e.tpEvento === '110110').map((e) => e.sequencia);
  const [mode, setMode] = useState<'texto' | 'campos'>('texto');
  const [text, setText] = useState('');
  const [rows, setRows] = useState<Row[]>(() => [emptyRow()]);
  const [sequencia, setSequencia] = useState(String(used.length === 0 ? 1 : Math.max(...used) + 1));
  const action = useAction();
  const label = 'Correção (15 a 500 caracteres)';
  const f = action.fields;
  const blocked = mode === 'campos' && rows.some((r) => forbiddenText(r.grupo, r.campo) !== null);
  const setRow = (key: number, changes: Partial<Row>) =>
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...changes } : r)));

  const submit = () => {
    if (blocked) return;
    const seq = sequencia.trim() === '' ? undefined : Number(sequencia);
    const body =
      mode === 'texto'
        ? { correcao: text }
        : {
            correcoes: rows.map((r) => ({
              grupoAlterado: r.grupo.trim(),
              campoAlterado: r.campo.trim(),
              valorAlterado: r.valor.trim(),
              ...(r.item.trim() === '' ? {} : { nroItemAlterado: Number(r.item) }),
            })),
          };
    void action
      .run(() => api.cte.cce(props.cte.id, { ...body, ...(seq === undefined ? {} : { sequencia: seq }) }))
      .then((a) => {
        if (a !== undefined) props.onDone();
      });
  };

  const shown = ['correcao', 'correcoes', 'sequencia'].concat(
    rows.flatMap((_, i) =>
      ['grupoAlterado', 'campoAlterado', 'valorAlterado', 'nroItemAlterado'].map(
        (k) => `correcoes[${i}].${k}`,
      ),
    ),
  );
  return (
    <Modal title={`Carta de correção do CT-e nº ${props.cte.numero}`} onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <p className="muted">
          A carta de correção não pode alterar valores e alíquotas de impostos, a identificação do remetente,
          destinatário ou tomador, nem datas de emissão.
        </p>
        <div className="actions" role="radiogroup" aria-label="Forma da correção">
          <label>
            <input type="radio" checked={mode === 'texto'} onChange={() => setMode('texto')} /> Texto livre
          </label>
          <label>
            <input type="radio" checked={mode === 'campos'} onChange={() => setMode('campos')} /> Campos do
            CT-e
          </label>
        </div>
        {mode === 'texto' ? (
          <CountedText
            label={label}
            value={text}
            onChange={setText}
            error={f['correcao'] ?? f['correcoes']}
          />
        ) : (
          <>
            {f['correcoes'] !== undefined ? <p className="field-error">{f['correcoes']}</p> : null}
            {rows.map((r, i) => {
              const forbidden = forbiddenText(r.grupo, r.campo);
              const n = i + 1;
              return (
                <div className="form-grid" key={r.key} data-testid={`cce-row-${n}`}>
                  <Field
                    label="Grupo"
                    error={f[`correcoes[${i}].grupoAlterado`]}
                    hint="ex.: compl, ide, dest"
                  >
                    <input
                      value={r.grupo}
                      onChange={(e) => setRow(r.key, { grupo: e.target.value })}
                      aria-label={`Grupo da correção ${n}`}
                    />
                  </Field>
                  <Field label="Campo" error={forbidden ?? f[`correcoes[${i}].campoAlterado`]}>
                    <input
                      value={r.campo}
                      onChange={(e) => setRow(r.key, { campo: e.target.value })}
                      aria-label={`Campo da correção ${n}`}
                    />
                  </Field>
                  <Field label="Valor correto" error={f[`correcoes[${i}].valorAlterado`]}>
                    <input
                      value={r.valor}
                      onChange={(e) => setRow(r.key, { valor: e.target.value })}
                      aria-label={`Valor da correção ${n}`}
                    />
                  </Field>
                  <Field label="Item (opcional)" error={f[`correcoes[${i}].nroItemAlterado`]}>
                    <input
                      value={r.item}
                      onChange={(e) => setRow(r.key, { item: e.target.value })}
                      aria-label={`Item da correção ${n}`}
                      inputMode="numeric"
                    />
                  </Field>
                </div>
              );
            })}
            <div className="actions">
              <button type="button" className="small" onClick={() => setRows((rs) => [...rs, emptyRow()])}>
                + Campo
              </button>
              {rows.length > 1 ? (
                <button type="button" className="small" onClick={() => setRows((rs) => rs.slice(0, -1))}>
                  Remover o último
                </button>
              ) : null}
            </div>
          </>
        )}
        <div className="form-grid">
          <Field label="Sequência (1 a 20)" error={f['sequencia']}>
            <input
              value={sequencia}
              onChange={(e) => setSequencia(e.target.value)}
              inputMode="numeric"
              aria-label="Sequência (1 a 20)"
            />
          </Field>
        </div>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, shown)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending || blocked}>
            Enviar carta de correção
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

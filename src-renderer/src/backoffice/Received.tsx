// Notes addressed to the company (NFeDistribuicaoDFe): sync with the authority and the recipient's
// manifestation (ciência, confirmação, desconhecimento, operação não realizada).
import { useState } from 'react';
import type { ManifestationType, ReceivedNoteView } from '../../../src-shared/contracts/api-client.ts';
import {
  Banner,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  Pager,
  StatusBadge,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, dateTimeBr, taxIdBr } from '../format.ts';
import { otherDetails } from '../messages.ts';

const PAGE_SIZE = 20;
const MANIFEST_PT: Readonly<Record<ManifestationType, string>> = {
  ciencia: 'Ciência da operação',
  confirmacao: 'Confirmação da operação',
  desconhecimento: 'Desconhecimento da operação',
  nao_realizada: 'Operação não realizada',
};

export function ReceivedScreen() {
  const { api } = useApp();
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState('');
  const list = useLoad(
    () => api.received.list({ page, limit: PAGE_SIZE, ...(filter === '' ? {} : { manifestacao: filter }) }),
    [api, page, filter],
  );
  const sync = useAction();
  const [syncResult, setSyncResult] = useState<string | null>(null);
  const [manifesting, setManifesting] = useState<{ note: ReceivedNoteView; tipo: ManifestationType } | null>(
    null,
  );

  return (
    <div className="page">
      <div className="page-head">
        <h1>Notas recebidas</h1>
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={sync.pending}
            onClick={() =>
              void sync
                .run(() => api.received.sync())
                .then((r) => {
                  if (r !== undefined) {
                    setSyncResult('Consulta à SEFAZ concluída.');
                    void list.reload();
                  }
                })
            }
          >
            Consultar SEFAZ agora
          </button>
        </div>
      </div>
      {syncResult !== null ? <Banner kind="ok">{syncResult}</Banner> : null}
      <ErrorBanner error={sync.error} />
      <div className="filters card">
        <Field label="Manifestação">
          <select
            value={filter}
            onChange={(e) => {
              setPage(1);
              setFilter(e.target.value);
            }}
          >
            <option value="">Todas</option>
            <option value="sem_manifestacao">Sem manifestação</option>
            {Object.entries(MANIFEST_PT).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <ErrorBanner error={list.error} />
      <table className="grid">
        <thead>
          <tr>
            <th>Emitente</th>
            <th>Emissão</th>
            <th className="num">Valor</th>
            <th>Situação</th>
            <th>Manifestação</th>
            <th>Ações</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((n) => (
            <tr key={n.id}>
              <td>
                {n.emitente.nome ?? '—'}
                <br />
                <span className="muted small">{taxIdBr(n.emitente.cnpj)}</span>
                <br />
                <span className="mono small">{n.chave_acesso}</span>
              </td>
              <td>{dateTimeBr(n.dh_emissao)}</td>
              <td className="num">{brlText(n.valor_total)}</td>
              <td>
                <StatusBadge status={n.situacao} />
                {n.completa ? null : <span className="tag">resumo</span>}
              </td>
              <td>
                {n.manifestacao === null
                  ? '—'
                  : `${MANIFEST_PT[n.manifestacao.tipo as ManifestationType] ?? n.manifestacao.tipo} (${n.manifestacao.status})`}
              </td>
              <td className="actions">
                {(Object.keys(MANIFEST_PT) as ManifestationType[]).map((tipo) => (
                  <button
                    key={tipo}
                    type="button"
                    className="small"
                    onClick={() => setManifesting({ note: n, tipo })}
                  >
                    {MANIFEST_PT[tipo].replace(' da operação', '')}
                  </button>
                ))}
              </td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={6}>
            Nenhuma nota recebida. Use “Consultar SEFAZ agora” (a SEFAZ permite uma consulta sem novidades por
            hora).
          </EmptyRow>
        </tbody>
      </table>
      {list.data !== null ? (
        <Pager page={page} pageSize={PAGE_SIZE} total={list.data.meta.total} onPage={setPage} />
      ) : null}
      {manifesting !== null ? (
        <ManifestDialog
          note={manifesting.note}
          tipo={manifesting.tipo}
          onClose={() => setManifesting(null)}
          onDone={() => {
            setManifesting(null);
            void list.reload();
          }}
        />
      ) : null}
    </div>
  );
}

function ManifestDialog(props: {
  note: ReceivedNoteView;
  tipo: ManifestationType;
  onClose: () => void;
  onDone: () => void;
}) {
  const { api } = useApp();
  const [justificativa, setJustificativa] = useState('');
  const action = useAction();
  const needsText = props.tipo === 'nao_realizada';
  return (
    <Modal title={MANIFEST_PT[props.tipo]} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(() =>
              api.received.manifest(props.note.id, props.tipo, needsText ? justificativa : undefined),
            )
            .then((r) => r !== undefined && props.onDone());
        }}
      >
        <p>
          Nota de {props.note.emitente.nome ?? taxIdBr(props.note.emitente.cnpj)} ·{' '}
          {brlText(props.note.valor_total)}
        </p>
        {needsText ? (
          <Field label="Justificativa (15 a 255 caracteres)" error={action.fields['justificativa']}>
            <textarea value={justificativa} onChange={(e) => setJustificativa(e.target.value)} />
          </Field>
        ) : null}
        <ErrorBanner error={action.error} extra={otherDetails(action.error, ['justificativa'])} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Registrar manifestação
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}

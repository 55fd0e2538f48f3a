// NF-e batches: send up to 50 notes from a JSON file (an ERP export: `[...]` or `{ "notas": [...] }`) and
// follow the progress of a batch (GET /v1/nfe/batch/:batchId) until every note has settled.
import { useEffect, useState } from 'react';
import type { BatchProgress } from '../../../src-shared/contracts/api-client.ts';
import {
  Banner,
  ErrorBanner,
  Field,
  FileInput,
  StatusBadge,
  newIdempotencyKey,
  useAction,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { STATUS_PT, errorMessage, otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';

export function BatchScreen(props: { batchId: string | null }) {
  const { api } = useApp();
  const [batchInput, setBatchInput] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const upload = useAction();
  const [progress, setProgress] = useState<BatchProgress | null>(null);
  const [progressError, setProgressError] = useState<unknown>(null);

  useEffect(() => {
    setProgress(null);
    setProgressError(null);
    if (props.batchId === null) return;
    const batchId = props.batchId;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const p = await api.nfe.batchProgress(batchId);
        if (!live) return;
        setProgress(p);
        setProgressError(null);
        if (p.status === 'processando') timer = setTimeout(() => void poll(), 1500);
      } catch (e) {
        if (live) setProgressError(e);
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, props.batchId]);

  const onFile = async (file: File) => {
    setFileError(null);
    let notas: unknown[];
    try {
      const parsed: unknown = JSON.parse(await file.text());
      const list = Array.isArray(parsed) ? parsed : (parsed as { notas?: unknown }).notas;
      if (!Array.isArray(list))
        throw new Error('o arquivo deve ter uma lista de notas ou { "notas": [...] }');
      notas = list;
    } catch (e) {
      setFileError(`Arquivo inválido: ${errorMessage(e)}`);
      return;
    }
    const created = await upload.run(() => api.nfe.batch(notas, newIdempotencyKey('lote')));
    if (created !== undefined) navigate(`/lotes/${created.batchId}`);
  };

  const done = progress === null ? 0 : progress.autorizadas + progress.rejeitadas;
  return (
    <div className="page">
      <h1>Lotes de NF-e</h1>
      <div className="two-col">
        <section className="card">
          <h2>Enviar um lote</h2>
          <p className="muted">
            Até 50 notas num arquivo JSON (cada nota no mesmo formato da emissão de NF-e pela integração).
            Todas são validadas antes de qualquer uma ser criada.
          </p>
          <FileInput
            accept="application/json,.json"
            aria-label="Arquivo do lote"
            onFile={(file) => {
              if (file !== null) void onFile(file);
            }}
          />
          {fileError !== null ? <Banner kind="error">{fileError}</Banner> : null}
          <ErrorBanner error={upload.error} extra={otherDetails(upload.error, [])} />
        </section>
        <section className="card">
          <h2>Acompanhar um lote</h2>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (batchInput.trim() !== '') navigate(`/lotes/${batchInput.trim()}`);
            }}
          >
            <Field label="Identificador do lote">
              <input value={batchInput} onChange={(e) => setBatchInput(e.target.value)} placeholder="bat_…" />
            </Field>
            <button type="submit">Abrir</button>
          </form>
        </section>
      </div>
      {props.batchId !== null ? (
        <section className="card" data-testid="batch-progress">
          <h2>
            Lote <span className="mono">{props.batchId}</span>
          </h2>
          <ErrorBanner error={progressError} />
          {progress !== null ? (
            <>
              <div className="progress" aria-label="Progresso do lote">
                <span
                  className="ok"
                  style={{ width: `${(100 * progress.autorizadas) / Math.max(1, progress.total)}%` }}
                />
                <span
                  className="bad"
                  style={{ width: `${(100 * progress.rejeitadas) / Math.max(1, progress.total)}%` }}
                />
              </div>
              <p>
                {done} de {progress.total} concluídas · {progress.autorizadas} autorizadas ·{' '}
                {progress.rejeitadas} rejeitadas · {progress.processando} em processamento{' '}
                <StatusBadge
                  status={progress.status === 'concluido' ? 'autorizada' : 'processando'}
                  label={progress.status === 'concluido' ? 'Concluído' : 'Processando'}
                />
              </p>
              <table className="grid">
                <thead>
                  <tr>
                    <th className="num">Número</th>
                    <th>Situação</th>
                    <th>Retorno</th>
                    <th>Chave</th>
                  </tr>
                </thead>
                <tbody>
                  {progress.notas.map((n) => (
                    <tr key={n.id}>
                      <td className="num">
                        <a href={href(`/documentos/55/${n.id}`)}>{n.numero}</a>
                      </td>
                      <td>
                        <StatusBadge status={n.status} label={STATUS_PT[n.status] ?? n.status} />
                      </td>
                      <td>{n.cStat === null ? '—' : `${n.cStat} – ${n.xMotivo ?? ''}`}</td>
                      <td className="mono small">{n.chave_acesso}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

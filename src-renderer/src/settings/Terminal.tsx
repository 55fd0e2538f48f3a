// This terminal's own preferences (kept in the browser) and the switch of the embedded test authority
// (GET/POST /v1/sandbox/faults), to rehearse a sale without SEFAZ in homologação.
import { useState } from 'react';
import { ApiRequestError } from '../../../src-shared/contracts/api-client.ts';
import { Banner, ErrorBanner, Field, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { refreshStatus } from '../StatusBar.tsx';

export function TerminalSection() {
  const { prefs, setPrefs } = useApp();
  const [saved, setSaved] = useState(false);
  return (
    <>
      <h1>Este terminal</h1>
      <section className="card">
        <p className="muted">Preferências guardadas só neste navegador/computador.</p>
        <label className="check">
          <input
            type="checkbox"
            checked={prefs.allowPriceOverride}
            onChange={(e) => {
              setPrefs({ ...prefs, allowPriceOverride: e.target.checked });
              setSaved(true);
            }}
          />{' '}
          Permitir alterar o preço de um item no caixa (F8)
        </label>
        <Field label="Largura da prévia do cupom">
          <select
            value={prefs.receiptWidth}
            onChange={(e) => {
              setPrefs({ ...prefs, receiptWidth: e.target.value === '58' ? 58 : 80 });
              setSaved(true);
            }}
          >
            <option value="80">80 mm</option>
            <option value="58">58 mm</option>
          </select>
        </Field>
        {saved ? <Banner kind="ok">Preferências salvas.</Banner> : null}
      </section>
    </>
  );
}

export function SandboxSection() {
  const { api, company } = useApp();
  const state = useLoad(
    () =>
      api.sandbox.faults().catch((e: unknown) => {
        if (e instanceof ApiRequestError && (e.status === 404 || e.status === 403)) return null;
        throw e;
      }),
    [api],
  );
  const action = useAction();
  const online = state.data === null ? null : state.data['online'] === true;
  const set = async (value: boolean) => {
    const r = await action.run(() => api.sandbox.setFaults({ online: value }));
    if (r !== undefined) state.setData(r);
    refreshStatus();
  };
  return (
    <>
      <h1>SEFAZ de testes (sandbox)</h1>
      <section className="card" data-testid="sandbox">
        {company.authority !== 'sandbox' ? (
          <p>Esta empresa emite para a SEFAZ real; não há autorizador de testes para controlar.</p>
        ) : state.loading && state.data === null ? (
          <p className="muted">Carregando…</p>
        ) : state.data === null ? (
          <p>O autorizador de testes não está disponível para esta chave (use uma chave de organização).</p>
        ) : (
          <>
            <p>
              Autorizador de testes embutido:{' '}
              <strong data-testid="sandbox-online">{online === true ? 'no ar' : 'fora do ar'}</strong>
            </p>
            <p className="muted">
              Fora do ar, as vendas esperam até 3 s e saem em contingência offline (tpEmis 9); ao voltar, a
              fila transmite as notas pendentes.
            </p>
            <div className="actions">
              <button
                type="button"
                className="danger"
                disabled={online !== true || action.pending}
                onClick={() => void set(false)}
              >
                Tirar do ar
              </button>
              <button
                type="button"
                className="primary"
                disabled={online !== false || action.pending}
                onClick={() => void set(true)}
              >
                Colocar no ar
              </button>
            </div>
          </>
        )}
        <ErrorBanner error={action.error ?? state.error} />
      </section>
    </>
  );
}

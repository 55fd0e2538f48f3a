// This terminal's own preferences (kept in the browser) and the switch of the embedded test authority
// (GET/POST /v1/sandbox/faults), to rehearse a sale without SEFAZ in homologação.
import { useState } from 'react';
import { ApiRequestError } from '../../../src-shared/contracts/api-client.ts';
import { Banner, ErrorBanner, Field, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { refreshStatus } from '../StatusBar.tsx';
import { validScaleLayout, type ScaleLayout } from '../cashier/scan.ts';
import { loadScaleLayout, saveScaleLayout } from '../cashier/scale-prefs.ts';

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
        <CaixaField />
        {saved ? <Banner kind="ok">Preferências salvas.</Banner> : null}
      </section>
      <ScaleLayoutCard />
    </>
  );
}

/** The register number of this terminal (two terminals, two registers: each its own float and count). */
function CaixaField() {
  const { prefs, setPrefs } = useApp();
  const [text, setText] = useState(prefs.caixa);
  const [note, setNote] = useState<string | null>(null);
  const valid = /^[0-9A-Za-z-]{1,10}$/.test(text);
  return (
    <Field
      label="Número deste caixa"
      error={valid ? undefined : 'De 1 a 10 letras, dígitos ou hífen.'}
      hint={note ?? 'Quem entrar neste terminal abre e fecha este caixa; vale a partir da próxima entrada.'}
    >
      <input
        aria-label="Número deste caixa"
        value={text}
        onChange={(e) => {
          const next = e.target.value.trim();
          setText(next);
          if (/^[0-9A-Za-z-]{1,10}$/.test(next)) {
            setPrefs({ ...prefs, caixa: next });
            setNote(`Este terminal é o caixa ${next}.`);
          }
        }}
      />
    </Field>
  );
}

/** How the labels of this store's scale are read: EAN-13 starting with 2, the item code, then the value. */
function ScaleLayoutCard() {
  const [layout, setLayout] = useState<ScaleLayout>(() => loadScaleLayout());
  const [saved, setSaved] = useState(false);
  const change = (next: ScaleLayout) => {
    if (!validScaleLayout(next)) return;
    saveScaleLayout(next);
    setLayout(next);
    setSaved(true);
  };
  const example = `2 ${'C'.repeat(layout.codeDigits)} ${'V'.repeat(11 - layout.codeDigits)} D`;
  return (
    <section className="card" data-testid="scale-layout">
      <h2>Etiquetas de balança</h2>
      <p className="muted">
        Códigos de barras EAN-13 que começam com 2: o código do produto e o preço ou o peso impressos pela
        balança. Formato atual: <code>{example}</code> (C código, V valor, D dígito verificador).
      </p>
      <Field label="Dígitos do código do produto">
        <select
          aria-label="Dígitos do código do produto"
          value={layout.codeDigits}
          onChange={(e) => change({ ...layout, codeDigits: Number(e.target.value) })}
        >
          {[4, 5, 6].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </Field>
      <Field label="A etiqueta traz">
        <select
          aria-label="A etiqueta traz"
          value={layout.value}
          onChange={(e) => {
            const value = e.target.value === 'peso' ? 'peso' : 'preco';
            change({ ...layout, value, decimals: value === 'peso' ? 3 : 2 });
          }}
        >
          <option value="preco">Preço (R$)</option>
          <option value="peso">Peso (kg)</option>
        </select>
      </Field>
      <Field label="Casas decimais do valor">
        <select
          aria-label="Casas decimais do valor"
          value={layout.decimals}
          onChange={(e) => change({ ...layout, decimals: Number(e.target.value) })}
        >
          {[0, 1, 2, 3].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </Field>
      {saved ? <Banner kind="ok">Formato da etiqueta salvo neste terminal.</Banner> : null}
    </section>
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
              Fora do ar, as vendas esperam até 3 s e saem em contingência offline (emitidas sem internet); ao
              voltar, a fila transmite as notas pendentes.
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

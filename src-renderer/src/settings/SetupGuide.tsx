// The first-setup guide: what a store needs before its first sale (company data, A1 certificate, NFC-e CSC,
// receipt printer, first operator), each step checked against the service and linked to where it is done.
// The first operator (a gerente) can be created right here; the back office shows a notice while a step is
// missing.
import { useState, type FormEvent } from 'react';
import { Banner, ErrorBanner, Field, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { href } from '../router.ts';

export interface SetupStep {
  id: 'empresa' | 'certificado' | 'csc' | 'impressora' | 'operador';
  label: string;
  done: boolean | null;
  where: string;
}

/** The steps and whether each is done (null while unknown: the check failed or is still loading). */
export function useSetupSteps(): { steps: SetupStep[]; reload: () => Promise<void> } {
  const { api, company } = useApp();
  const state = useLoad(async () => {
    const settle = <T,>(p: Promise<T>) => p.then((v): T | null => v).catch(() => null);
    const [certificate, printers, operators] = await Promise.all([
      settle(api.companies.certificate(company.id)),
      settle(api.printers.list(company.id)),
      settle(api.operators.list({ ativo: true })),
    ]);
    return {
      certificate: certificate !== null,
      printers: printers === null ? null : printers.items.length > 0,
      operators: operators === null ? null : operators.data.length > 0,
    };
  }, [api, company.id]);
  const e = company.endereco;
  const companyDone =
    company.xNome.trim() !== '' && company.ie.trim() !== '' && e.xLgr.trim() !== '' && e.cMun.trim() !== '';
  const steps: SetupStep[] = [
    { id: 'empresa', label: 'Dados da empresa', done: companyDone, where: '/configuracoes/empresa' },
    {
      id: 'certificado',
      label: 'Certificado digital A1',
      done: state.data?.certificate ?? null,
      where: '/configuracoes/certificado',
    },
    { id: 'csc', label: 'CSC da NFC-e', done: company.csc !== null, where: '/configuracoes/nfce' },
    {
      id: 'impressora',
      label: 'Impressora de cupons',
      done: state.data?.printers ?? null,
      where: '/configuracoes/impressoras',
    },
    {
      id: 'operador',
      label: 'Primeiro operador (gerente)',
      done: state.data?.operators ?? null,
      where: '/configuracoes/inicio',
    },
  ];
  return { steps, reload: state.reload };
}

/** One line in the back office while a step is missing, linking to the guide. */
export function SetupNotice() {
  const { steps } = useSetupSteps();
  const missing = steps.filter((s) => s.done === false);
  if (missing.length === 0) return null;
  return (
    <div className="setup-notice" data-testid="setup-notice">
      Configuração inicial: falta {missing.map((s) => s.label.toLowerCase()).join(', ')}.{' '}
      <a href={href('/configuracoes/inicio')}>Abrir o guia de primeiros passos</a>
    </div>
  );
}

export function SetupGuide() {
  const { steps, reload } = useSetupSteps();
  const operatorMissing = steps.find((s) => s.id === 'operador')?.done === false;
  // Said by the guide, not the form: the form goes away as soon as the step is done.
  const [created, setCreated] = useState<string | null>(null);
  return (
    <>
      <h1>Primeiros passos</h1>
      <section className="card" data-testid="setup-guide">
        <p className="muted">O que a loja precisa antes da primeira venda. Cada passo leva à sua tela.</p>
        <ol className="setup-steps">
          {steps.map((s) => (
            <li key={s.id} data-step={s.id} data-done={String(s.done)}>
              <span className={`setup-mark ${s.done === true ? 'ok' : s.done === false ? 'missing' : ''}`}>
                {s.done === true ? '✓' : s.done === false ? '!' : '…'}
              </span>{' '}
              {s.id === 'operador' ? s.label : <a href={href(s.where)}>{s.label}</a>}
              {s.done === false ? <span className="muted"> — falta configurar</span> : null}
            </li>
          ))}
        </ol>
      </section>
      {created !== null ? <Banner kind="ok">{created}</Banner> : null}
      {operatorMissing ? (
        <FirstOperatorCard
          onCreated={(text) => {
            setCreated(text);
            void reload();
          }}
        />
      ) : null}
    </>
  );
}

function FirstOperatorCard(props: { onCreated: (text: string) => void }) {
  const { api } = useApp();
  const [nome, setNome] = useState('');
  const [pin, setPin] = useState('');
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const op = await action.run(() => api.operators.create({ nome: nome.trim(), papel: 'gerente', pin }));
    if (op === undefined) return;
    setNome('');
    setPin('');
    props.onCreated(
      `${op.nome} criado com o código ${op.codigo}. Use esse código e o PIN para entrar no caixa.`,
    );
  };
  return (
    <section className="card" data-testid="first-operator">
      <h2>Primeiro operador</h2>
      <p className="muted">
        O gerente entra no caixa com o código e o PIN, e autoriza descontos, cancelamentos e reimpressões.
      </p>
      <form onSubmit={(e) => void submit(e)}>
        <Field label="Nome">
          <input value={nome} onChange={(e) => setNome(e.target.value)} aria-label="Nome do operador" />
        </Field>
        <Field label="PIN (4 a 8 dígitos)">
          <input
            value={pin}
            inputMode="numeric"
            type="password"
            autoComplete="new-password"
            onChange={(e) => setPin(e.target.value.replace(/\D/g, '').slice(0, 8))}
            aria-label="PIN do operador"
          />
        </Field>
        <button type="submit" className="primary" disabled={action.pending}>
          Criar gerente
        </button>
      </form>
      <ErrorBanner error={action.error} />
    </section>
  );
}

// Around the cashier: nobody sells before signing in, and no sale happens on a closed register. Shows who
// is selling, and F1 opens the register menu (sangria, suprimento, closing, sign-out) between sales: the cashier's F2–F12
// are its own.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  ApiRequestError,
  type MovementView,
  type SessionView,
} from '../../../src-shared/contracts/api-client.ts';
import { ROLE_LABELS } from '../../../src-shared/tables/operator-roles.ts';
import { Banner } from '../components.tsx';
import { Cashier } from '../cashier/Cashier.tsx';
import { useApp } from '../context.ts';
import { brlNumber, centsToDecimal } from '../register/money.ts';
import { ClosedRegister, CloseRegister } from '../register/CloseRegister.tsx';
import { RegisterContext, type RegisterState } from '../register/context.ts';
import { MovementForm } from '../register/Movement.tsx';
import { OpenRegister } from '../register/OpenRegister.tsx';
import '../register/register.css';
import { SignIn } from './SignIn.tsx';
import { operatorSessionEnded, setSignedOperator, useSignedOperator, type SignedOperator } from './store.ts';

const SESSION_ENDED =
  'A sessão do operador terminou (expirou, foi encerrada ou o papel mudou): entre de novo.';

/** The register menu may leave the sale screen only between sales: nothing typed would be lost. */
function saleIsIdle(): boolean {
  const cashier = document.querySelector<HTMLElement>('.cashier');
  if (cashier === null) return true;
  const mode = cashier.dataset['mode'];
  if (mode === 'done') return true;
  const items = document.querySelector('[data-testid=item-count]')?.textContent ?? '0';
  return mode === 'sale' && items.trim() === '0' && document.querySelector('[role=dialog]') === null;
}

export function CashierGate() {
  const { api, company, prefs } = useApp();
  const operator = useSignedOperator(company.id);
  // Whether the company has operators at all: until the first one is registered the cashier sells as
  // before (first setup), and so does a service without /v1/operators.
  const [hasOperators, setHasOperators] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    api.operators.list({ ativo: true }).then(
      (list) => live && setHasOperators(list.data.length > 0),
      (e: unknown) => live && setHasOperators(!(e instanceof ApiRequestError && e.status === 404)),
    );
    return () => {
      live = false;
    };
    // Asked once per company: signing in (a new client) must not ask again.
  }, [company.id]);

  if (hasOperators === null && operator === null) return <p className="loading">Carregando…</p>;
  if (hasOperators === false && operator === null) return <Cashier />;
  if (operator === null)
    return (
      <SignIn
        caixa={prefs.caixa}
        onSignedIn={(answer) => setSignedOperator({ ...answer, companyId: company.id })}
      />
    );
  return <RegisterGate key={operator.token} operator={operator} />;
}

type Phase =
  | { kind: 'sale' }
  | { kind: 'menu' }
  | { kind: 'movement'; tipo: 'sangria' | 'suprimento' }
  | { kind: 'close' }
  | { kind: 'closed'; session: SessionView };

function RegisterGate(props: { operator: SignedOperator }) {
  const { api } = useApp();
  const { operator } = props;
  // undefined: loading; null: closed; 'none': the service has no register sessions.
  const [session, setSession] = useState<SessionView | null | 'none' | undefined>(undefined);
  const [phase, setPhase] = useState<Phase>({ kind: 'sale' });
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);

  const signOut = useCallback(() => {
    void api.operators.signOut().catch(() => undefined);
    setSignedOperator(null);
  }, [api]);

  const [loads, setLoads] = useState(0);
  useEffect(() => {
    let live = true;
    api.registerSessions.current(operator.caixa).then(
      (s) => live && setSession(s),
      (e: unknown) => {
        if (!live) return;
        // The token expired or was signed out elsewhere: back to the sign-in.
        if (e instanceof ApiRequestError && e.status === 401) operatorSessionEnded(SESSION_ENDED);
        else setNotice({ kind: 'error', text: `Caixa: ${e instanceof Error ? e.message : String(e)}` });
      },
    );
    return () => {
      live = false;
    };
  }, [api, operator.caixa, loads]);

  const openSession = session !== undefined && session !== null && session !== 'none' ? session : null;
  // Voids are sent without waiting (the cashier goes on selling); the closing waits for them, so a void
  // reported just before never arrives after the session was closed.
  const voidsSent = useRef<Promise<unknown>>(Promise.resolve());
  const registerState = useMemo<RegisterState>(
    () => ({
      operator,
      session: openSession,
      reportVoid: (tipo, descricao, valorCents) => {
        if (openSession === null) return;
        const sent = api.registerSessions
          .void(openSession.id, {
            tipo,
            descricao: descricao.slice(0, 200),
            valor: centsToDecimal(valorCents),
          })
          .catch(() => undefined);
        voidsSent.current = Promise.all([voidsSent.current, sent]);
      },
      reload: () => setLoads((n) => n + 1),
    }),
    [api, operator, openSession],
  );

  // F1: the register menu, between sales only.
  const phaseRef = useRef(phase);
  phaseRef.current = phase;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'F1' || phaseRef.current.kind !== 'sale') return;
      e.preventDefault();
      if (!saleIsIdle()) {
        setNotice({ kind: 'info', text: 'Conclua ou cancele a venda antes de abrir o menu do caixa.' });
        return;
      }
      setNotice(null);
      setPhase({ kind: 'menu' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (session === undefined) return <p className="loading">Carregando o caixa…</p>;
  if (phase.kind === 'closed')
    return (
      <ClosedRegister
        session={phase.session}
        onDone={() => {
          setPhase({ kind: 'sale' });
          signOut();
        }}
      />
    );
  if (session === null)
    return (
      <OpenRegister
        caixa={operator.caixa}
        operatorName={`${operator.operador.codigo} · ${operator.operador.nome}`}
        onOpened={(s) => {
          setSession(s);
          setNotice({ kind: 'ok', text: `Caixa aberto com fundo de troco de ${brlNumber(s.fundo_troco)}.` });
        }}
        onUnsupported={() => setSession('none')}
        onSignOut={signOut}
      />
    );

  const bar = (
    <div className="operator-bar" data-testid="operator-bar">
      <span data-testid="operator-name">
        Operador <strong>{operator.operador.codigo}</strong> · {operator.operador.nome} (
        {ROLE_LABELS[operator.operador.papel]})
      </span>
      <span>Caixa {operator.caixa}</span>
      <span className="fkey">
        <kbd>F1</kbd> Menu do caixa
      </span>
      {notice !== null ? (
        <Banner kind={notice.kind} testId="register-notice">
          {notice.text}
        </Banner>
      ) : null}
    </div>
  );

  let body;
  if (phase.kind === 'menu')
    body = (
      <RegisterMenu
        hasSession={openSession !== null}
        onPick={(choice) => {
          if (choice === 'sair') signOut();
          else if (choice === 'fechar') setPhase({ kind: 'close' });
          else setPhase({ kind: 'movement', tipo: choice });
        }}
        onCancel={() => setPhase({ kind: 'sale' })}
      />
    );
  else if (phase.kind === 'movement' && openSession !== null)
    body = (
      <MovementForm
        sessionId={openSession.id}
        tipo={phase.tipo}
        onCancel={() => setPhase({ kind: 'sale' })}
        onDone={(m: MovementView) => {
          setSession({ ...openSession, movimentos: [...openSession.movimentos, m] });
          setNotice({
            kind: 'ok',
            text: `${m.tipo === 'sangria' ? 'Sangria' : 'Suprimento'} de ${brlNumber(m.valor)} ${m.tipo === 'sangria' ? 'registrada' : 'registrado'}${m.impressao === null ? '' : ' e impresso'}.`,
          });
          setPhase({ kind: 'sale' });
        }}
      />
    );
  else if (phase.kind === 'close' && openSession !== null)
    body = (
      <CloseRegister
        session={openSession}
        beforeClose={() => voidsSent.current}
        onCancel={() => setPhase({ kind: 'sale' })}
        onClosed={(closed) => {
          setSession(null);
          setPhase({ kind: 'closed', session: closed });
        }}
      />
    );
  else body = <Cashier />;

  return (
    <RegisterContext.Provider value={registerState}>
      <div className="register-gate">
        {bar}
        {body}
      </div>
    </RegisterContext.Provider>
  );
}

const MENU: readonly { key: string; choice: 'sangria' | 'suprimento' | 'fechar' | 'sair'; label: string }[] =
  [
    { key: '1', choice: 'sangria', label: 'Sangria (retirada de dinheiro)' },
    { key: '2', choice: 'suprimento', label: 'Suprimento (reforço de troco)' },
    { key: '3', choice: 'fechar', label: 'Fechar o caixa' },
    { key: '4', choice: 'sair', label: 'Trocar de operador (sair)' },
  ];

function RegisterMenu(props: {
  hasSession: boolean;
  onPick: (choice: (typeof MENU)[number]['choice']) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const items = MENU.filter((m) => props.hasSession || m.choice === 'sair');
  return (
    <div className="register-screen" data-testid="register-menu">
      <div
        ref={ref}
        tabIndex={-1}
        className="card register-card"
        onKeyDown={(e) => {
          if (e.key === 'Escape' || e.key === 'F1') {
            e.preventDefault();
            e.stopPropagation();
            props.onCancel();
            return;
          }
          const item = items.find((m) => m.key === e.key);
          if (item !== undefined) {
            e.preventDefault();
            props.onPick(item.choice);
          }
        }}
      >
        <h1>Menu do caixa</h1>
        <ul className="menu-list">
          {items.map((m) => (
            <li key={m.key}>
              <button type="button" onClick={() => props.onPick(m.choice)} data-testid={`menu-${m.choice}`}>
                <kbd>{m.key}</kbd> {m.label}
              </button>
            </li>
          ))}
        </ul>
        <p className="dialog-keys">
          <kbd>Esc</kbd> volta à venda
        </p>
      </div>
    </div>
  );
}

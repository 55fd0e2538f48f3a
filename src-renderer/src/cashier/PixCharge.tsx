// The PIX waiting screen: creates the charge with the store's PSP for the amount due, shows its QR code with
// the amount and a countdown, polls the charge every second and hands the paid charge back to the payment
// panel. Esc cancels the charge and returns; F8 prints the QR for the customer; in the sandbox a button pays.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { toDataURL } from 'qrcode';
import type { ApiClient } from '../../../src-shared/contracts/api-client.ts';
import type { PixChargeView, PixConfigView } from '../../../src-shared/contracts/pix.ts';
import { formatScaled, SCALE } from '../../../src-shared/money.ts';
import { newIdempotencyKey } from '../components.tsx';
import { brl } from '../format.ts';
import { errorMessage } from '../messages.ts';

const POLL_MS = 1000;

/**
 * The company's PSP: undefined while it is being read, null when there is none (PIX stays static, tPag 20).
 * Read once per screen; a failure to read counts as none, so the cashier can always take a static PIX.
 */
export function usePixProvider(api: ApiClient): PixConfigView | null | undefined {
  const [config, setConfig] = useState<PixConfigView | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    if (api.companyId === undefined) {
      setConfig(null);
      return;
    }
    api.pix.config(api.companyId).then(
      (c) => live && setConfig(c),
      () => live && setConfig(null),
    );
    return () => {
      live = false;
    };
  }, [api]);
  return config;
}

type Phase = 'creating' | 'waiting' | 'paid' | 'expired' | 'failed' | 'cancelling';

function mmss(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}

export function PixCharge(props: {
  api: ApiClient;
  cents: bigint;
  sandbox: boolean;
  onPaid: (charge: PixChargeView) => void;
  onCancel: () => void;
}) {
  const { api, cents } = props;
  const [charge, setCharge] = useState<PixChargeView | null>(null);
  const [phase, setPhase] = useState<Phase>('creating');
  const [message, setMessage] = useState<string | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  // The countdown runs on this machine's clock from the charge's lifetime, so a PSP or service whose clock
  // differs from the terminal's still shows the right time left.
  const started = useRef(Date.now());
  const done = useRef(false);
  const callbacks = useRef(props);
  callbacks.current = props;

  const finishPaid = (paid: PixChargeView) => {
    if (done.current) return;
    done.current = true;
    setPhase('paid');
    setCharge(paid);
    callbacks.current.onPaid(paid);
  };

  useEffect(() => {
    let live = true;
    const key = newIdempotencyKey('pix');
    api.pix.createCharge({ valor: formatScaled(cents, SCALE.money), descricao: 'Compra no caixa' }, key).then(
      (created) => {
        if (!live) return;
        started.current = Date.now();
        setCharge(created);
        setPhase('waiting');
      },
      (error: unknown) => {
        if (!live) return;
        setPhase('failed');
        setMessage(`${errorMessage(error)} Esc volta ao pagamento.`);
      },
    );
    return () => {
      live = false;
    };
  }, [api, cents]);

  const txid = charge?.txid ?? null;
  const lifetimeMs = charge === null ? 0 : Date.parse(charge.expira_em) - Date.parse(charge.criada_em);
  const leftMs = lifetimeMs - (now - started.current);

  useEffect(() => {
    if (charge === null) return;
    let live = true;
    void toDataURL(charge.pixCopiaECola, { margin: 2, width: 280, errorCorrectionLevel: 'M' }).then(
      (url) => live && setQr(url),
    );
    return () => {
      live = false;
    };
  }, [charge?.pixCopiaECola]);

  // Polls the charge every second while it waits; the service asks the PSP each time.
  useEffect(() => {
    if (txid === null || phase !== 'waiting') return;
    let live = true;
    const timer = setInterval(() => {
      setNow(Date.now());
      api.pix.charge(txid).then(
        (fresh) => {
          if (!live) return;
          if (fresh.status === 'CONCLUIDA') finishPaid(fresh);
          else if (fresh.status !== 'ATIVA') {
            setPhase('expired');
            setMessage(
              fresh.status === 'REMOVIDA_PELO_PSP'
                ? 'O PIX expirou sem pagamento. Esc volta ao pagamento.'
                : 'A cobrança PIX foi cancelada. Esc volta ao pagamento.',
            );
          }
        },
        () => undefined,
      );
    }, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, txid, phase]);

  // Past its time here the charge is removed at the PSP as well, so a late payment cannot arrive unseen.
  useEffect(() => {
    if (phase !== 'waiting' || txid === null || lifetimeMs <= 0 || leftMs > 0) return;
    setPhase('expired');
    setMessage('O PIX expirou sem pagamento. Esc volta ao pagamento.');
    api.pix.cancel(txid).then(
      (after) => after.status === 'CONCLUIDA' && finishPaid(after),
      () => undefined,
    );
  }, [phase, txid, leftMs, lifetimeMs]);

  const cancel = () => {
    if (done.current) return;
    if (txid === null || phase !== 'waiting') {
      done.current = true;
      callbacks.current.onCancel();
      return;
    }
    setPhase('cancelling');
    api.pix.cancel(txid).then(
      () => {
        done.current = true;
        callbacks.current.onCancel();
      },
      (error: unknown) => {
        // Paid while the cashier pressed Esc: the money is in, so the sale goes on with it.
        void api.pix.charge(txid).then(
          (fresh) => {
            if (fresh.status === 'CONCLUIDA') finishPaid(fresh);
            else {
              setPhase('waiting');
              setMessage(`Não foi possível cancelar: ${errorMessage(error)}`);
            }
          },
          () => {
            setPhase('waiting');
            setMessage(`Não foi possível cancelar: ${errorMessage(error)}`);
          },
        );
      },
    );
  };

  const print = () => {
    if (txid === null) return;
    api.pix.print(txid).then(
      () => setMessage('QR do PIX enviado para a impressora.'),
      (error: unknown) => setMessage(`Impressão: ${errorMessage(error)}`),
    );
  };

  const simulate = () => {
    if (txid === null) return;
    api.pix.simulatePayment(txid).then(
      (paid) => paid.status === 'CONCLUIDA' && finishPaid(paid),
      (error: unknown) => setMessage(errorMessage(error)),
    );
  };

  const onKey = useRef<(e: KeyboardEvent) => void>(() => undefined);
  onKey.current = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      cancel();
    } else if (e.key === 'F8') {
      e.preventDefault();
      e.stopPropagation();
      print();
    } else if (/^F\d+$/.test(e.key)) e.preventDefault();
  };
  useLayoutEffect(() => {
    const listener = (e: KeyboardEvent) => onKey.current(e);
    // Capture: the waiting screen has the keys before the cashier's own listener.
    window.addEventListener('keydown', listener, true);
    return () => window.removeEventListener('keydown', listener, true);
  }, []);

  return (
    <div
      className="pix-charge"
      data-testid="pix-charge"
      data-txid={txid ?? undefined}
      data-phase={phase}
      role="dialog"
      aria-label="Pagamento PIX"
    >
      <h2>PIX {brl(cents)}</h2>
      {phase === 'creating' ? <p data-testid="pix-status">Gerando a cobrança PIX…</p> : null}
      {charge !== null ? (
        <>
          <div className="pix-qr">
            {qr === null ? null : (
              <img src={qr} alt="QR code do PIX" data-testid="pix-qr" width={280} height={280} />
            )}
          </div>
          <p data-testid="pix-status">
            {phase === 'waiting'
              ? `Aguardando o pagamento… expira em ${mmss(leftMs)}`
              : phase === 'paid'
                ? 'PIX recebido.'
                : phase === 'cancelling'
                  ? 'Cancelando a cobrança…'
                  : ''}
          </p>
          <p className="small pix-copy" data-testid="pix-copia-e-cola">
            {charge.pixCopiaECola}
          </p>
        </>
      ) : null}
      {message === null ? null : (
        <p className="notice" role="status" data-testid="pix-message">
          {message}
        </p>
      )}
      <p className="legend small">Esc cancela o PIX e volta ao pagamento · F8 imprime o QR</p>
      {props.sandbox && phase === 'waiting' ? (
        <button type="button" data-testid="pix-simulate" onClick={simulate}>
          Simular pagamento
        </button>
      ) : null}
    </div>
  );
}

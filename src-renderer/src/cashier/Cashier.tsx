// The cashier screen: keyboard first. The code field always has the focus (a scanner types digits + Enter
// into it); function keys open the rest; F10 takes payment and the sale becomes an NFC-e via POST /v1/nfce.
// No keystroke is lost: focus moves in the same commit that shows a field, and keys typed while the screen
// loads or an action is pending are held by key-buffer.ts and typed again in order. A barcode read while the
// payment panel is open is recognized as a scan (scan.ts) and refused, never taken as cash.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import type { DocumentView } from '../../../src-shared/contracts/api-client.ts';
import { Banner, ErrorBanner, newIdempotencyKey } from '../components.tsx';
import { useApp } from '../context.ts';
import { useCashierRules, whenAllowed } from '../register/cashier-rules.ts';
import { brl, brlText, centsToInput, parseBrMoney, quantityBr, taxIdBr } from '../format.ts';
import { errorMessage, otherDetails, STATUS_PT } from '../messages.ts';
import { refreshStatus } from '../StatusBar.tsx';
import { refuseBeep } from './alert-sound.ts';
import {
  CancelSaleDialog,
  CpfDialog,
  CustomerDialog,
  ProductSearchDialog,
  PromptDialog,
} from './dialogs.tsx';
import { claimKeys, setBusy } from './key-buffer.ts';
import { Receipt } from './Receipt.tsx';
import { loadScaleLayout } from './scale-prefs.ts';
import { PixCharge, usePixProvider } from './PixCharge.tsx';
import { heldSale, holdSaleIfSessionEnded, releaseHeldSale } from '../operators/held-sale.ts';
import type { PixChargeView } from '../../../src-shared/contracts/pix.ts';
import {
  BurstTracker,
  cashCap,
  largeChange,
  parseScaleLabel,
  quantityForPrice,
  scaleItemCodes,
  weightQuantity,
} from './scan.ts';
import {
  CancelLastDialog,
  PriceCheckDialog,
  printErrorMessage,
  RecentReceiptsDialog,
  type Resolved,
} from './tools.tsx';
import {
  addItem,
  CASHIER_METHODS,
  EMPTY_SALE,
  itemCents,
  methodLabel,
  parseDiscount,
  parseEntry,
  parseQuantity,
  parseUnitPrice,
  paymentProblem,
  salePayload,
  totalsOf,
  type Sale,
  type SaleItem,
} from './sale.ts';

type Mode = 'sale' | 'payment' | 'issuing' | 'done';
/** In payment, first the method (its number, or ↑ ↓ and Enter for the whole amount), then the amount. */
type PayStage = 'method' | 'amount';
type Dialog =
  | 'search'
  | 'quantity'
  | 'discount'
  | 'price'
  | 'cpf'
  | 'customer'
  | 'cancel'
  | 'price-check'
  | 'receipts'
  | 'cancel-last'
  | null;

const KEYS_SALE: readonly [string, string][] = [
  ['F2', 'Buscar'],
  ['F3', 'Qtde'],
  ['F4', 'Desconto'],
  ['F5', 'Consulta'],
  ['F6', 'CPF'],
  ['F7', 'Cliente'],
  ['F8', 'Preço'],
  ['F9', 'Remover'],
  ['F10', 'Pagar'],
  ['F11', 'Reimprimir'],
  ['F12', 'Cancelar NFC-e'],
  ['Esc', 'Cancelar venda'],
];
const KEYS_PAYMENT_METHOD: readonly [string, string][] = [
  ['1–9', 'Forma'],
  ['↑ ↓', 'Escolher'],
  ['Enter', 'Pagar o total'],
  ['F9', 'Remover pagamento'],
  ['F10', 'Finalizar'],
  ['Esc', 'Voltar aos itens'],
];
const KEYS_PAYMENT_AMOUNT: readonly [string, string][] = [
  ['Enter', 'Lançar valor'],
  ['F9', 'Remover pagamento'],
  ['F10', 'Finalizar'],
  ['Esc', 'Trocar a forma'],
];
const KEYS_DONE: readonly [string, string][] = [
  ['Código', 'Nova venda'],
  ['F2–F10', 'Como na venda'],
  ['F8', 'Imprimir'],
  ['F11', 'Reimprimir'],
  ['F12', 'Cancelar NFC-e'],
  ['Enter', 'Nova venda'],
];
/** Keys of a new sale that also work on the finished sale's screen, starting the next sale. */
const NEXT_SALE_KEYS = new Set(['F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F9', 'F10', 'F11', 'F12']);
/** How often the finished sale's panel asks again about a note still waiting for the authority. */
const FOLLOW_MS = 2000;

interface PaySnapshot {
  stage: PayStage;
  methodIndex: number;
  amount: string;
}

let lineKey = 0;

/** Products by code and barcode, filled at start and on every lookup, so a scan rarely waits for the API. */
class ProductCache {
  private readonly byCode = new Map<string, ProductView>();
  add(p: ProductView): void {
    if (!p.ativo) return;
    this.byCode.set(p.cProd, p);
    if (p.cEAN !== null && p.cEAN !== 'SEM GTIN') this.byCode.set(p.cEAN, p);
  }
  get(code: string): ProductView | undefined {
    return this.byCode.get(code);
  }
}

export function Cashier() {
  const { api, prefs, company } = useApp();
  // The signed-in operator's limits: a supervisor's PIN for what the role cannot do alone.
  const rules = useCashierRules();
  // A sale whose operator's session ended comes back on screen for whoever signs in next (held-sale.ts).
  const [held] = useState(() => heldSale(company.id));
  const [sale, setSale] = useState<Sale>(held?.sale ?? EMPTY_SALE);
  const [mode, setMode] = useState<Mode>('sale');
  const [dialog, setDialog] = useState<Dialog>(null);
  // Dynamic PIX (PixCharge.tsx): the company's PSP, and the amount of the charge on screen.
  const pixProvider = usePixProvider(api);
  const [pixCents, setPixCents] = useState<bigint | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [nextQuantity, setNextQuantity] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ kind: 'error' | 'ok' | 'info'; text: string } | null>(
    held === null
      ? null
      : {
          kind: 'info',
          text: 'Venda retomada: a sessão do operador anterior terminou antes de ela ser emitida.',
        },
  );
  const [saleError, setSaleError] = useState<unknown>(null);
  const [result, setResult] = useState<{ doc: DocumentView; change: bigint } | null>(null);
  const [code, setCode] = useState('');
  const [methodIndex, setMethodIndex] = useState(0);
  const [payStage, setPayStage] = useState<PayStage>('method');
  const [amount, setAmount] = useState('');
  /** The cash amount whose large change was shown once: Enter on the same amount confirms it. */
  const [changeConfirm, setChangeConfirm] = useState<string | null>(null);
  const [beeps, setBeeps] = useState(0);
  const codeRef = useRef<HTMLInputElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const methodsRef = useRef<HTMLUListElement>(null);
  const burst = useRef(new BurstTracker<PaySnapshot>()).current;
  const cache = useRef(new ProductCache()).current;
  const lookups = useRef<Promise<void>>(Promise.resolve());
  const attempt = useRef<{ body: string; key: string } | null>(held?.attempt ?? null);
  useEffect(() => {
    if (held !== null) releaseHeldSale(held);
  }, [held]);
  // What is on screen as the cashier goes: held when it goes because the operator's session ended.
  const onScreen = useRef({ sale, mode });
  onScreen.current = { sale, mode };
  useEffect(
    () => () => {
      const { sale: left, mode: leftMode } = onScreen.current;
      if (leftMode !== 'done')
        holdSaleIfSessionEnded({ companyId: company.id, sale: left, attempt: attempt.current });
    },
    [company.id],
  );
  const totals = totalsOf(sale);
  const selectedItem = sale.items.find((i) => i.key === selected) ?? sale.items.at(-1);

  // Preload the catalogue (up to 2 000 active products) so scans resolve locally.
  useEffect(() => {
    let live = true;
    void (async () => {
      for (let page = 1; page <= 20 && live; page++) {
        const list = await api.products.list({ page, limit: 100 }).catch(() => null);
        if (list === null) return;
        list.data.forEach((p) => cache.add(p));
        if (page >= list.meta.totalPages) return;
      }
    })();
    return () => {
      live = false;
    };
  }, [api, cache]);

  const focusMain = useCallback(() => {
    if (mode === 'payment') (payStage === 'method' ? methodsRef : amountRef).current?.focus();
    else codeRef.current?.focus();
  }, [mode, payStage]);

  // A layout effect, not a passive one: the field has the focus before the browser handles another key,
  // so a key typed the moment the payment panel shows goes into it (a passive effect ran later, and a key
  // in between fell on the page: the sale neither finished nor showed an error).
  useLayoutEffect(() => {
    if (dialog === null) focusMain();
  }, [dialog, mode, payStage, focusMain]);

  /** Something typed or scanned is refused: the message on screen and the sound, never silence. */
  const refuse = useCallback((text: string) => {
    setNotice({ kind: 'error', text });
    setBeeps(refuseBeep());
  }, []);

  const focusMainRef = useRef(focusMain);
  useLayoutEffect(() => {
    focusMainRef.current = focusMain;
  });
  useLayoutEffect(() => claimKeys({ focus: () => focusMainRef.current() }), []);

  // Actions that answer later hold the keys typed meanwhile; they are typed again once the screen shows
  // the outcome (checked after every commit, so an answer that changes nothing visible still releases).
  const pending = useRef({ payment: false, issuing: false, selectAmount: false });
  useLayoutEffect(() => {
    if (pending.current.selectAmount && mode === 'payment') {
      pending.current.selectAmount = false;
      // Typing replaces the suggested amount, as when the panel opened.
      amountRef.current?.select();
    }
    if (!pending.current.payment) setBusy('payment', false);
    if (!pending.current.issuing) setBusy('issuing', false);
  });

  const newSale = useCallback(() => {
    setSale(EMPTY_SALE);
    setResult(null);
    setSaleError(null);
    setSelected(null);
    setNextQuantity(null);
    setMode('sale');
    setPayStage('method');
    setChangeConfirm(null);
    attempt.current = null;
  }, []);

  const addProduct = useCallback((product: ProductView, quantity: string, single = false) => {
    const item: SaleItem = {
      key: ++lineKey,
      product,
      quantity,
      unitPrice: product.vUnCom,
      priceOverridden: false,
      ...(single ? { single: true } : {}),
    };
    setSale((s) => addItem(s, item));
    setSelected(null);
    setNotice(null);
  }, []);

  const lookup = useCallback(
    async (codeText: string): Promise<ProductView | undefined> => {
      const cached = cache.get(codeText);
      if (cached !== undefined) return cached;
      const found = await api.products.list({ q: codeText, limit: 20 });
      found.data.forEach((p) => cache.add(p));
      return cache.get(codeText);
    },
    [api, cache],
  );

  /**
   * A typed or scanned code → the product, and for a scale label (EAN-13 starting with 2 that no product
   * carries as its own code) the quantity weighed or derived from the price printed on it.
   */
  const resolve = useCallback(
    async (codeText: string): Promise<Resolved | string> => {
      const direct = await lookup(codeText);
      if (direct !== undefined) return { product: direct, quantity: null, lineCents: null };
      const label = parseScaleLabel(codeText, loadScaleLayout());
      if (label === null) return `Produto não encontrado: ${codeText}`;
      if (label.kind === 'bad-check-digit')
        return `Etiqueta de balança ilegível (dígito verificador não confere): ${codeText}. Passe de novo.`;
      let product: ProductView | undefined;
      for (const c of scaleItemCodes(label.itemCode)) product ??= await lookup(c);
      if (product === undefined) return `Produto da balança não encontrado: código ${label.itemCode}`;
      const quantity =
        label.value === 'peso'
          ? weightQuantity(label.amount)
          : quantityForPrice(label.amount, product.vUnCom);
      if (quantity === null) return `Etiqueta de balança sem valor: ${codeText}`;
      return { product, quantity, lineCents: itemCents({ quantity, unitPrice: product.vUnCom }) };
    },
    [lookup],
  );

  const submitCode = (e: FormEvent) => {
    e.preventDefault();
    const text = code;
    setCode('');
    if (text.trim() === '') {
      if (mode === 'done') newSale();
      return;
    }
    const entry = parseEntry(text);
    if (entry === null) {
      setNotice({ kind: 'error', text: `Entrada inválida: “${text}”. Use código ou quantidade*código.` });
      return;
    }
    if (mode === 'done') newSale();
    const quantity = entry.quantity ?? nextQuantity ?? '1';
    setNextQuantity(null);
    // Scans arrive faster than lookups may answer: resolve them in order, one after the other.
    lookups.current = lookups.current.then(async () => {
      try {
        const found = await resolve(entry.code);
        if (typeof found === 'string') refuse(found);
        else if (found.quantity !== null) addProduct(found.product, found.quantity, true);
        else addProduct(found.product, quantity);
      } catch (error) {
        refuse(errorMessage(error));
      }
    });
  };

  // F10 waits for the scans still being looked up, then opens payment with what is left to pay.
  const [paymentRequested, setPaymentRequested] = useState(false);
  const openPayment = () => {
    pending.current.payment = true;
    setBusy('payment', true);
    lookups.current = lookups.current.then(() => setPaymentRequested(true));
  };
  useLayoutEffect(() => {
    if (!paymentRequested) return;
    setPaymentRequested(false);
    pending.current.payment = false;
    if (sale.items.length === 0) {
      setNotice({ kind: 'info', text: 'Inclua ao menos um item antes do pagamento.' });
      return;
    }
    setMethodIndex(0);
    setPayStage('method');
    setChangeConfirm(null);
    setAmount(centsToInput(totals.remaining));
    setSaleError(null);
    burst.reset();
    setMode('payment');
  }, [paymentRequested, sale.items.length, totals.remaining, burst]);

  const finish = useCallback(
    async (final: Sale) => {
      const body = salePayload(final);
      const text = JSON.stringify(body);
      // The same sale retried (no answer from the service) keeps its key and is never issued twice.
      if (attempt.current === null || attempt.current.body !== text)
        attempt.current = { body: text, key: newIdempotencyKey('venda') };
      pending.current.issuing = true;
      setBusy('issuing', true);
      setMode('issuing');
      setSaleError(null);
      try {
        const doc = await rules.sell(api, body, attempt.current);
        attempt.current = null;
        setResult({ doc, change: totalsOf(final).change });
        setMode('done');
        refreshStatus();
        // Printers with impressaoAutomatica print the receipt by themselves (the service queues it).
      } catch (error) {
        setSaleError(error);
        setMode('payment');
      } finally {
        pending.current.issuing = false;
      }
    },
    [api, rules.sell],
  );

  const addPayment = (index = methodIndex, amountText = amount) => {
    const method = CASHIER_METHODS[index] ?? CASHIER_METHODS[0];
    if (method === undefined) return;
    if (amountText.trim() === '' && totals.remaining === 0n) {
      void finish(sale);
      return;
    }
    const cents = parseBrMoney(amountText);
    if (cents === null) {
      refuse('Valor inválido.');
      return;
    }
    const problem = paymentProblem(method.tPag, cents, totals.remaining);
    if (problem !== null) {
      refuse(problem);
      return;
    }
    if (method.tPag === '01' && cents > totals.remaining) {
      const cap = cashCap(totals.remaining);
      if (cents > cap) {
        refuse(`Valor recebido alto demais (${brl(cents)}): em dinheiro, no máximo ${brl(cap)} nesta venda.`);
        pending.current.selectAmount = true;
        setAmount(amountText);
        return;
      }
      const change = cents - totals.remaining;
      const confirmKey = `${index}|${cents}`;
      if (largeChange(change, totals.total) && changeConfirm !== confirmKey) {
        setChangeConfirm(confirmKey);
        setNotice({
          kind: 'info',
          text: `Troco de ${brl(change)} para ${brl(cents)} recebidos: confira. Enter confirma, Esc corrige.`,
        });
        return;
      }
    }
    setChangeConfirm(null);
    if (method.tPag === '17' && pixProvider != null) {
      // The store has a PSP: the waiting screen charges the amount and adds the payment once it is paid.
      setPixCents(cents);
      return;
    }
    const next: Sale = {
      ...sale,
      payments: [
        ...sale.payments,
        {
          key: ++lineKey,
          // Without a PSP the customer pays the store's static QR: tPag 20 (NT 2023.004).
          tPag: method.tPag === '17' ? '20' : method.tPag,
          cents,
          ...(method.tPag === '99' ? { descricao: 'Outros' } : {}),
        },
      ],
    };
    setSale(next);
    setNotice(null);
    const left = totalsOf(next).remaining;
    if (left === 0n) void finish(next);
    else {
      setMethodIndex(0);
      setPayStage('method');
      setAmount(centsToInput(left));
    }
  };

  /** A method picked by its number: the amount field takes the rest to pay, selected to be typed over. */
  const pickMethod = (index: number) => {
    setMethodIndex(index);
    setChangeConfirm(null);
    setAmount(centsToInput(totals.remaining));
    pending.current.selectAmount = true;
    setPayStage('amount');
  };

  /** The waiting screen's paid charge becomes the payment line: tPag 17 with its txid (pix_txid). */
  const addPixPayment = (paid: PixChargeView) => {
    const cents = pixCents ?? 0n;
    setPixCents(null);
    const next: Sale = {
      ...sale,
      payments: [...sale.payments, { key: ++lineKey, tPag: '17', cents, pixTxid: paid.txid }],
    };
    setSale(next);
    setNotice({ kind: 'ok', text: `PIX de ${brl(cents)} recebido.` });
    const left = totalsOf(next).remaining;
    if (left === 0n) void finish(next);
    else {
      setMethodIndex(0);
      setPayStage('method');
      setAmount(centsToInput(left));
    }
  };

  const printReceipt = () => {
    if (result === null) return;
    api.nfce.print(result.doc.id, prefs.printerId === null ? {} : { printerId: prefs.printerId }).then(
      () => setNotice({ kind: 'ok', text: 'Cupom enviado para a impressora.' }),
      (err: unknown) => refuse(`Impressão: ${printErrorMessage(err)}`),
    );
  };

  // A note issued in contingency (or still processing) is followed until the authority answers, so the
  // cashier sees it become "Autorizada" without leaving the screen.
  const followId =
    result !== null && ['contingencia', 'processando'].includes(result.doc.status) ? result.doc.id : null;
  useEffect(() => {
    if (followId === null) return;
    let live = true;
    const timer = setInterval(() => {
      api.documents.get(65, followId).then(
        (doc) => live && setResult((r) => (r !== null && r.doc.id === doc.id ? { ...r, doc } : r)),
        () => undefined,
      );
    }, FOLLOW_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, followId]);

  const removeSelected = () => {
    if (selectedItem === undefined) return;
    const item = selectedItem;
    const answer = rules.approveRemoval(
      api,
      {
        descricao: item.product.xProd,
        codigo: item.product.cProd,
        quantidade: item.quantity,
        valorCents: itemCents(item),
      },
      sale.payments.length > 0,
    );
    whenAllowed(answer, (ok) => {
      if (!ok) {
        setNotice({ kind: 'error', text: 'Remoção não autorizada.' });
        return;
      }
      setSale((s) => ({ ...s, items: s.items.filter((i) => i.key !== item.key) }));
      setSelected(null);
      setNotice({ kind: 'info', text: `Item removido: ${item.product.xProd}` });
    });
  };

  // Function keys, on the window so they work whatever has the focus. One listener for the screen's life,
  // calling the handler of the last commit: re-adding it after every render left a window in which a key
  // met the previous render's handler (the old mode) or none at all.
  const onKeyRef = useRef<(e: KeyboardEvent) => void>(() => undefined);
  useLayoutEffect(() => {
    const listener = (e: KeyboardEvent) => onKeyRef.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);
  useLayoutEffect(() => {
    onKeyRef.current = (e: KeyboardEvent) => {
      if (dialog !== null || mode === 'issuing' || pixCents !== null) return;
      const key = e.key;
      const handled = () => {
        e.preventDefault();
        e.stopPropagation();
      };
      let current = sale;
      if (mode === 'done') {
        if (key === 'F8') {
          handled();
          printReceipt();
          return;
        } else if (key === 'Escape') {
          handled();
          newSale();
          return;
        }
        if (!NEXT_SALE_KEYS.has(key)) return;
        // Every key of a sale starts the next one from here, and what follows goes where that key sends it.
        newSale();
        current = EMPTY_SALE;
      }
      if (mode === 'payment') {
        const now = performance.now();
        burst.key(key, now, () => ({ stage: payStage, methodIndex, amount }));
        if (key === 'Enter') {
          const scan = burst.scanAt(now);
          if (scan !== null) {
            // A barcode read in the payment panel is not money: put the panel back as it was before it.
            handled();
            setPayStage(scan.before.stage);
            setMethodIndex(scan.before.methodIndex);
            setAmount(scan.before.amount);
            setChangeConfirm(null);
            if (scan.before.stage === 'amount') pending.current.selectAmount = true;
            refuse(`Código lido no pagamento (${scan.code}): volte aos itens (Esc) para adicioná-lo.`);
            return;
          }
          if (payStage === 'method') {
            handled();
            addPayment(methodIndex, centsToInput(totals.remaining));
          }
          return;
        }
        if (payStage === 'method' && /^\d$/.test(key)) {
          handled();
          const index = Number(key) - 1;
          if (index >= 0 && index < CASHIER_METHODS.length) pickMethod(index);
          return;
        }
        if (key === 'ArrowDown' || key === 'ArrowUp') {
          handled();
          setPayStage('method');
          setChangeConfirm(null);
          setMethodIndex((i) =>
            key === 'ArrowDown' ? Math.min(CASHIER_METHODS.length - 1, i + 1) : Math.max(0, i - 1),
          );
        } else if (key === 'Escape') {
          handled();
          setChangeConfirm(null);
          if (payStage === 'amount') {
            setPayStage('method');
            setAmount(centsToInput(totals.remaining));
          } else setMode('sale');
        } else if (key === 'F9') {
          handled();
          const next = { ...sale, payments: sale.payments.slice(0, -1) };
          setSale(next);
          setAmount(centsToInput(totalsOf(next).remaining));
          setPayStage('method');
        } else if (key === 'F10') {
          handled();
          if (totals.remaining === 0n) void finish(sale);
          else addPayment(methodIndex, payStage === 'method' ? centsToInput(totals.remaining) : amount);
        }
        return;
      }
      const currentItem = current === sale ? selectedItem : undefined;
      switch (key) {
        case 'F2':
          handled();
          setDialog('search');
          break;
        case 'F3':
          handled();
          setDialog('quantity');
          break;
        case 'F4':
          handled();
          if (current.items.length > 0) setDialog('discount');
          break;
        case 'F5':
          handled();
          setDialog('price-check');
          break;
        case 'F11':
          handled();
          setDialog('receipts');
          break;
        case 'F12':
          handled();
          if (current.items.length > 0)
            refuse('Há uma venda em andamento: conclua ou cancele (Esc) antes de cancelar a última NFC-e.');
          else setDialog('cancel-last');
          break;
        case 'F6':
          handled();
          setDialog('cpf');
          break;
        case 'F7':
          handled();
          setDialog('customer');
          break;
        case 'F8':
          handled();
          if (!prefs.allowPriceOverride)
            setNotice({ kind: 'error', text: 'Alteração de preço não permitida neste terminal.' });
          else if (currentItem !== undefined) setDialog('price');
          break;
        case 'F9':
          handled();
          if (currentItem !== undefined) removeSelected();
          break;
        case 'F10':
          handled();
          openPayment();
          break;
        case 'Escape':
          handled();
          if (current.items.length > 0) setDialog('cancel');
          break;
        case 'ArrowUp':
        case 'ArrowDown': {
          if (sale.items.length === 0) return;
          handled();
          const index = sale.items.findIndex((i) => i.key === selectedItem?.key);
          const next =
            key === 'ArrowUp' ? Math.max(0, index - 1) : Math.min(sale.items.length - 1, index + 1);
          setSelected(sale.items[next]?.key ?? null);
          break;
        }
        default:
          // F1 keeps its browser meaning; the rest of the F-keys are ours (F5 no longer reloads the page
          // and loses the sale being rung up).
          if (/^F\d+$/.test(key) && key !== 'F1') handled();
      }
    };
  });

  const legend =
    mode === 'payment'
      ? payStage === 'method'
        ? KEYS_PAYMENT_METHOD
        : KEYS_PAYMENT_AMOUNT
      : mode === 'done'
        ? KEYS_DONE
        : KEYS_SALE;
  const keepFocus = () => {
    // The code field keeps the focus: a scanner must always type into it.
    requestAnimationFrame(() => {
      if (dialog !== null) return;
      const active = document.activeElement;
      if (active === null || active === document.body) focusMain();
    });
  };

  return (
    <div className="cashier" data-mode={mode} data-pay-stage={payStage} data-beeps={beeps}>
      <section className="cashier-main">
        <form className="code-form" onSubmit={submitCode}>
          <label htmlFor="code" className="code-label">
            {nextQuantity !== null ? `Quantidade ${quantityBr(nextQuantity)} × ` : ''}Código ou código de
            barras
            <span className="muted"> (quantidade*código)</span>
          </label>
          <input
            id="code"
            ref={codeRef}
            autoFocus
            className="code-input"
            autoComplete="off"
            value={code}
            disabled={mode === 'payment' || mode === 'issuing'}
            onChange={(e) => setCode(e.target.value)}
            onBlur={keepFocus}
            data-testid="code-input"
          />
        </form>
        {notice !== null ? (
          <Banner kind={notice.kind} testId="cashier-notice">
            {notice.text}
          </Banner>
        ) : null}
        <div className="items-scroll">
          <table className="grid items" data-testid="sale-items">
            <thead>
              <tr>
                <th className="num">#</th>
                <th>Código</th>
                <th>Descrição</th>
                <th className="num">Qtd</th>
                <th className="num">Unitário</th>
                <th className="num">Total</th>
              </tr>
            </thead>
            <tbody>
              {sale.items.map((item, i) => (
                <tr
                  key={item.key}
                  className={item.key === selectedItem?.key && mode === 'sale' ? 'selected' : ''}
                  onClick={() => setSelected(item.key)}
                >
                  <td className="num">{i + 1}</td>
                  <td>{item.product.cProd}</td>
                  <td>{item.product.xProd}</td>
                  <td className="num">
                    {quantityBr(item.quantity)} {item.product.uCom}
                  </td>
                  <td className="num">
                    {brlText(item.unitPrice)}
                    {item.priceOverridden ? <span className="tag">alterado</span> : null}
                  </td>
                  <td className="num">{brl(itemCents(item))}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {sale.items.length === 0 ? (
            <p className="empty-sale">
              {mode === 'done' ? 'Venda concluída.' : 'Caixa livre.'} Passe o código de barras ou digite o
              código do produto.
            </p>
          ) : null}
        </div>
      </section>

      <aside className="cashier-side">
        <div className="total-box" data-testid="total-box">
          <span className="total-label">Total</span>
          <span className="total-value" data-testid="sale-total">
            {brl(totals.total)}
          </span>
          <dl className="total-lines">
            <dt>Itens</dt>
            <dd data-testid="item-count">{totals.itemCount}</dd>
            <dt>Subtotal</dt>
            <dd>{brl(totals.subtotal)}</dd>
            {totals.discount > 0n ? (
              <>
                <dt>Desconto</dt>
                <dd>− {brl(totals.discount)}</dd>
              </>
            ) : null}
            {sale.payments.length > 0 ? (
              <>
                <dt>Pago</dt>
                <dd>{brl(totals.paid)}</dd>
                {totals.change > 0n || totals.remaining > 0n ? (
                  <>
                    <dt>{totals.change > 0n ? 'Troco' : 'Falta'}</dt>
                    <dd data-testid={totals.change > 0n ? 'change' : 'remaining'}>
                      {brl(totals.change > 0n ? totals.change : totals.remaining)}
                    </dd>
                  </>
                ) : null}
              </>
            ) : null}
          </dl>
          {sale.cpf !== null || sale.customer !== null ? (
            <p className="consumer" data-testid="consumer">
              {sale.customer !== null
                ? `Cliente: ${sale.customer.nome} ${sale.customer.doc === null ? '' : taxIdBr(sale.customer.doc)}`
                : `CPF na nota: ${taxIdBr(sale.cpf)}`}
            </p>
          ) : null}
        </div>

        {mode === 'payment' || mode === 'issuing' ? (
          <div className="payment" data-testid="payment-panel">
            {pixCents === null ? null : (
              <PixCharge
                api={api}
                cents={pixCents}
                sandbox={pixProvider?.provedor === 'sandbox'}
                onPaid={addPixPayment}
                onCancel={() => {
                  setPixCents(null);
                  // Back to choosing the method, the amount due filled in again.
                  setPayStage('method');
                  setAmount(centsToInput(totals.remaining));
                  setNotice({ kind: 'info', text: 'PIX cancelado: escolha a forma de pagamento.' });
                }}
              />
            )}
            <h2>Pagamento</h2>
            <ul
              ref={methodsRef}
              tabIndex={0}
              className={`methods${payStage === 'method' ? ' choosing' : ''}`}
              role="listbox"
              aria-label="Forma de pagamento"
              data-testid="payment-methods"
              onBlur={keepFocus}
            >
              {CASHIER_METHODS.map((m, i) => (
                <li
                  key={m.tPag}
                  role="option"
                  aria-selected={i === methodIndex}
                  className={i === methodIndex ? 'selected' : ''}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    pickMethod(i);
                  }}
                >
                  {i < 9 ? <kbd className="method-key">{i + 1}</kbd> : null} {m.label}
                </li>
              ))}
            </ul>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                addPayment();
              }}
            >
              <label className="field">
                <span className="field-label">
                  {payStage === 'method' ? 'Escolha a forma (1–9) ou Enter paga o restante em ' : 'Valor em '}
                  {CASHIER_METHODS[methodIndex]?.label ?? ''}
                  {payStage === 'method' ? '' : ' (Enter lança)'}
                </span>
                <input
                  ref={amountRef}
                  className="big-input"
                  inputMode="decimal"
                  value={amount}
                  disabled={mode === 'issuing'}
                  readOnly={payStage === 'method'}
                  tabIndex={payStage === 'method' ? -1 : 0}
                  onChange={(e) => {
                    setChangeConfirm(null);
                    setAmount(e.target.value);
                  }}
                  onFocus={(e) => e.target.select()}
                  data-testid="payment-amount"
                />
              </label>
            </form>
            {sale.payments.length > 0 ? (
              <table className="grid payments" data-testid="payments">
                <tbody>
                  {sale.payments.map((p) => (
                    <tr key={p.key}>
                      <td>{methodLabel(p.tPag)}</td>
                      <td className="num">{brl(p.cents)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {mode === 'issuing' ? (
              <Banner kind="info" testId="issuing">
                Emitindo NFC-e…
              </Banner>
            ) : null}
            <ErrorBanner error={saleError} extra={otherDetails(saleError, [])} />
          </div>
        ) : null}

        {mode === 'done' && result !== null ? (
          <div
            className="sale-done"
            data-testid="sale-done"
            data-doc-id={result.doc.id}
            data-status={result.doc.status}
          >
            <p className={`done-status status-${result.doc.status}`} data-testid="sale-status">
              NFC-e nº {result.doc.numero} · {STATUS_PT[result.doc.status] ?? result.doc.status}
              {result.doc.status === 'contingencia'
                ? ' (emitida sem internet; será enviada à SEFAZ assim que a conexão voltar)'
                : ''}
            </p>
            {result.change > 0n ? (
              <p className="change-big" data-testid="sale-change">
                Troco <strong>{brl(result.change)}</strong>
              </p>
            ) : null}
            <div className="actions">
              <button type="button" onClick={printReceipt}>
                F8 · Imprimir
              </button>
              <button type="button" onClick={newSale}>
                Enter · Nova venda
              </button>
            </div>
            <Receipt doc={result.doc} />
          </div>
        ) : null}
      </aside>

      <footer className="fkeys" aria-label="Teclas de função">
        {legend.map(([k, label]) => (
          <span key={k} className="fkey">
            <kbd>{k}</kbd> {label}
          </span>
        ))}
        <span className="fkey-company">{company.xFant ?? company.xNome}</span>
      </footer>

      {dialog === 'search' ? (
        <ProductSearchDialog
          onClose={() => setDialog(null)}
          onPick={(p) => {
            cache.add(p);
            if (mode === 'done') newSale();
            addProduct(p, nextQuantity ?? '1');
            setNextQuantity(null);
            setDialog(null);
          }}
        />
      ) : null}
      {dialog === 'quantity' ? (
        <PromptDialog<string>
          title="Quantidade (F3)"
          label={
            selectedItem === undefined || mode === 'done'
              ? 'Quantidade do próximo item'
              : `Quantidade de ${selectedItem.product.xProd}`
          }
          initial={
            selectedItem === undefined || mode === 'done' ? '' : selectedItem.quantity.replace('.', ',')
          }
          parse={(t) => {
            const q = parseQuantity(t);
            return q === null
              ? { ok: false, error: 'Quantidade inválida (positiva, até 4 casas decimais).' }
              : { ok: true, value: q };
          }}
          onAccept={(q) => {
            if (selectedItem === undefined || mode === 'done') setNextQuantity(q);
            else
              setSale((s) => ({
                ...s,
                items: s.items.map((i) => (i.key === selectedItem.key ? { ...i, quantity: q } : i)),
              }));
            setDialog(null);
          }}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === 'price' && selectedItem !== undefined ? (
        <PromptDialog<string>
          title="Preço unitário (F8)"
          label={`Novo preço de ${selectedItem.product.xProd}`}
          initial={centsToInput(itemCents({ quantity: '1', unitPrice: selectedItem.unitPrice }))}
          parse={(t) => {
            const p = parseUnitPrice(t);
            return p === null ? { ok: false, error: 'Preço inválido.' } : { ok: true, value: p };
          }}
          onAccept={(p) => {
            const item = selectedItem;
            setDialog(null);
            whenAllowed(p === item.product.vUnCom ? true : rules.approvePrice(), (ok) => {
              if (!ok) {
                setNotice({ kind: 'error', text: 'Alteração de preço não autorizada.' });
                return;
              }
              setSale((s) => ({
                ...s,
                items: s.items.map((i) =>
                  i.key === item.key ? { ...i, unitPrice: p, priceOverridden: p !== i.product.vUnCom } : i,
                ),
              }));
            });
          }}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === 'discount' ? (
        <PromptDialog<bigint>
          title="Desconto na venda (F4)"
          label="Desconto em R$ ou em % (ex.: 5,00 ou 10%)"
          initial={sale.discountCents > 0n ? centsToInput(sale.discountCents) : ''}
          parse={(t) => {
            const d = parseDiscount(t, totals.subtotal);
            return d === null
              ? { ok: false, error: `Desconto inválido: deve ser menor que ${brl(totals.subtotal)}.` }
              : { ok: true, value: d };
          }}
          onAccept={(d) => {
            setDialog(null);
            whenAllowed(rules.approveDiscount(d, totals.subtotal), (ok) => {
              if (ok) setSale((s) => ({ ...s, discountCents: d }));
              else setNotice({ kind: 'error', text: 'Desconto acima do limite não autorizado.' });
            });
          }}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === 'cpf' ? (
        <CpfDialog
          initial={sale.cpf}
          onClose={() => setDialog(null)}
          onAccept={(cpf) => {
            setSale((s) => ({ ...s, cpf, customer: cpf === null ? s.customer : null }));
            setDialog(null);
          }}
        />
      ) : null}
      {dialog === 'customer' ? (
        <CustomerDialog
          onClose={() => setDialog(null)}
          onPick={(c) => {
            setSale((s) => ({
              ...s,
              cpf: null,
              customer: { id: c.id, nome: c.xNome, doc: c.cpf ?? c.cnpj ?? null },
            }));
            setDialog(null);
          }}
        />
      ) : null}
      {dialog === 'price-check' ? (
        <PriceCheckDialog resolve={resolve} onClose={() => setDialog(null)} />
      ) : null}
      {dialog === 'receipts' ? <RecentReceiptsDialog onClose={() => setDialog(null)} /> : null}
      {dialog === 'cancel-last' ? (
        <CancelLastDialog
          onClose={() => setDialog(null)}
          onCancelled={(doc) => {
            setDialog(null);
            setResult((r) => (r !== null && r.doc.id === doc.id ? { ...r, doc } : r));
            setNotice({
              kind: 'ok',
              text:
                doc.status === 'cancelada'
                  ? `NFC-e nº ${doc.numero} cancelada.`
                  : `Cancelamento da NFC-e nº ${doc.numero} enviado à SEFAZ.`,
            });
            refreshStatus();
          }}
        />
      ) : null}
      {dialog === 'cancel' ? (
        <CancelSaleDialog
          total={totals.total}
          onClose={() => setDialog(null)}
          onConfirm={() => {
            rules.reportCancelledSale(sale.items.length, totals.total);
            newSale();
            setNotice({ kind: 'info', text: 'Venda cancelada.' });
            setDialog(null);
          }}
        />
      ) : null}
    </div>
  );
}

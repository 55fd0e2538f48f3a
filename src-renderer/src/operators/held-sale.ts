// The sale on screen when the operator's session was ended by the back office (PIN or role changed,
// deactivated, expired): the sign-in replaces the cashier, and the next operator to sign in at this terminal,
// the same one or another, finds the sale as it was instead of ringing it up again with the customer waiting.
import type { Sale } from '../cashier/sale.ts';
import { sessionEndReason } from './store.ts';

export interface HeldSale {
  companyId: string;
  sale: Sale;
  /** The Idempotency-Key of the sale's last request: a retry of the same sale never issues it twice. */
  attempt: { body: string; key: string } | null;
}

/** Kept in memory: a reload starts over as before; a held sale is for the sign-in that follows. */
let held: HeldSale | null = null;

/**
 * Called as the cashier goes away: keeps a sale that has something on it, only when it goes because the
 * operator's session ended (leaving for the back office or signing out between sales drops it as before).
 */
export function holdSaleIfSessionEnded(entry: HeldSale): void {
  if (sessionEndReason() === null) return;
  if (entry.sale.items.length === 0 && entry.sale.payments.length === 0) return;
  held = entry;
}

/** The sale held for `companyId`, for the cashier that shows next (read in its state's initializer). */
export function heldSale(companyId: string): HeldSale | null {
  return held !== null && held.companyId === companyId ? held : null;
}

/** The cashier has it on screen: handed once (a separate step, as React may run an initializer twice). */
export function releaseHeldSale(entry: HeldSale): void {
  if (held === entry) held = null;
}

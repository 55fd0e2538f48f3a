// What a payload's ids name (customers, products, fiscal profiles), loaded by the caller before the pure
// normalizers run so that they look them up synchronously; the same for every document kind.
import type { CustomerView } from '../../src-shared/contracts/customers.ts';
import type { FiscalProfileView, ProductView } from '../../src-shared/contracts/catalog.ts';

export interface PayloadLookup {
  customer(id: string): CustomerView | undefined;
  product(id: string): ProductView | undefined;
  profile(id: string): FiscalProfileView | undefined;
  /** The company's default fiscal profile (simple mode, §2.1), if it has one. */
  defaultProfile(): FiscalProfileView | undefined;
}

// Helpers that tie a request to the company it acts on, for resources that belong to one company.
import type { Request, Response } from 'express';
import type { Db } from '../../db/client.ts';
import type { AuthContext } from '../../api-keys/service.ts';
import { companyForRequest } from '../../companies/service.ts';
import type { CompanyRow } from '../../companies/repository.ts';
import { companiesRepository } from '../../companies/repository.ts';
import { authOf } from '../middleware/auth.ts';
import { forbidden, notFound } from '../errors.ts';
import { documentsRepository, type DocumentRow } from '../../documents/repository.ts';

/** `?companyId=` or `X-Company-Id`; a company key may omit it. */
export function requestedCompanyId(req: Request): string | undefined {
  const fromQuery = req.query['companyId'];
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  return req.get('X-Company-Id') ?? undefined;
}

export async function companyOfRequest(db: Db, req: Request, res: Response) {
  const requested = requestedCompanyId(req);
  // The idempotency middleware read the same row a moment before the handler asks: its copy is taken once,
  // and any later call (after the handler changed the company, say) reads the row again.
  const read = res.locals[COMPANY_READ] as { requested: string | undefined; company: CompanyRow } | undefined;
  if (read !== undefined) {
    delete res.locals[COMPANY_READ];
    if (read.requested === requested) return read.company;
  }
  return companyForRequest(db, authOf(res), requested);
}

// A res.locals key no handler's own names can meet.
const COMPANY_READ = 'balcao.companyReadAhead';

/** companyOfRequest for a middleware: the handler's first call then takes this read instead of its own. */
export async function companyOfRequestAhead(db: Db, req: Request, res: Response) {
  const requested = requestedCompanyId(req);
  const company = await companyForRequest(db, authOf(res), requested);
  res.locals[COMPANY_READ] = { requested, company };
  return company;
}

/** The models the NF-e routes (/v1/nfe, /v1/nfce) serve: a CT-e is only reachable under /v1/cte. */
export const NF_MODELOS: readonly number[] = [55, 65];

/** Whether a key may touch rows of `companyId`, without telling whether that company exists. */
export function reachableBy(db: Db, auth: AuthContext) {
  return async (companyId: string): Promise<boolean> => {
    if (auth.scope === 'company') return auth.companyId === companyId;
    const company = await companiesRepository.findById(db, companyId);
    return company !== undefined && company.organization_id === auth.organizationId;
  };
}

/**
 * The document of `:id`: 404 when it exists nowhere (or is of another model than the route's), 403 when the key
 * cannot reach its company, whether or not it exists.
 */
export async function documentOfRequest(
  db: Db,
  req: Request,
  res: Response,
  onlyModelo?: number | readonly number[],
): Promise<DocumentRow> {
  const doc = await documentsRepository.findById(db, String(req.params['id']));
  const allowed = typeof onlyModelo === 'number' ? [onlyModelo] : onlyModelo;
  if (doc === undefined || (allowed !== undefined && !allowed.includes(doc.modelo)))
    throw notFound('Document');
  if (!(await reachableBy(db, authOf(res))(doc.company_id))) throw forbidden();
  return doc;
}

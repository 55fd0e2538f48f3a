// /v1/customers: create (POST), replace (PUT), read and search (GET).
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { validationError } from '../errors.ts';
import { normalizeRecipient } from '../../fiscal/nfe/normalize.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import { municipioDetails } from '../../companies/service.ts';
import {
  createCustomer,
  customerInCompanies,
  customerView,
  listCustomers,
  replaceCustomer,
} from '../../customers/service.ts';
import {
  customerCreateSchema,
  customerListQuerySchema,
  type CustomerCreate,
} from '../../../src-shared/contracts/customers.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';

const addressCheck = (raw: unknown) => municipioDetails(raw, ['endereco', 'cMun']);

/** Names only the specification's recipient uses (§2.2 spelling A, spelling B's destinatario). */
const SPEC_NAMES = ['cpfCnpj', 'cpf_cnpj', 'nome', 'razao_social', 'telefone', 'logradouro', 'municipio'];

function writtenAsSpecified(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const body = raw as Record<string, unknown>;
  const address = body['endereco'];
  return (
    SPEC_NAMES.some((name) => name in body) ||
    (typeof address === 'object' && address !== null && ('logradouro' in address || 'numero' in address))
  );
}

/**
 * A saved customer in either form: the layout's names (xNome, endereco.xLgr, cMun…) or the recipient as
 * the specification draws it (cpfCnpj, nome, telefone, endereco with xMun/UF/CEP, or spelling B), whose
 * city is found in the IBGE table like a note's recipient.
 */
function customerInput(raw: unknown): CustomerCreate {
  if (!writtenAsSpecified(raw)) return parseOrThrow(customerCreateSchema, raw, [], addressCheck);
  const recipient = normalizeRecipient(raw);
  if (!recipient.ok) throw validationError(recipient.errors);
  const { dest } = recipient;
  const e = dest.enderDest;
  const telefone = (raw as Record<string, unknown>)['telefone'];
  const fone = e?.fone ?? (typeof telefone === 'string' ? telefone : null);
  return parseOrThrow(customerCreateSchema, {
    ...(dest.CPF === undefined ? {} : { cpf: dest.CPF }),
    ...(dest.CNPJ === undefined ? {} : { cnpj: dest.CNPJ }),
    ...(dest.idEstrangeiro === undefined ? {} : { idEstrangeiro: dest.idEstrangeiro }),
    ...(dest.xNome === undefined ? {} : { xNome: dest.xNome }),
    ...(dest.IE === undefined ? {} : { ie: dest.IE }),
    indIEDest: dest.indIEDest,
    ...(dest.email === undefined ? {} : { email: dest.email }),
    ...(fone === null ? {} : { fone }),
    ...(e === undefined
      ? {}
      : {
          endereco: {
            xLgr: e.xLgr,
            nro: e.nro,
            ...(e.xCpl === null ? {} : { xCpl: e.xCpl }),
            xBairro: e.xBairro,
            cMun: e.cMun,
            xMun: e.xMun,
            uf: e.UF,
            ...(e.CEP === null ? {} : { cep: e.CEP }),
          },
        }),
  });
}

export function customerRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { q, ...window } = pageLimitQuery(req, customerListQuerySchema.shape);
    const { items, total } = await listCustomers(db, company.id, q, window);
    res.json(dataList(items, total, window));
  });

  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = customerInput(req.body);
    res.status(201).json(await createCustomer(db, clock, company, input));
  });

  router.get('/:id', async (req, res) => {
    const row = await customerInCompanies(db, req.params.id, reachableBy(db, authOf(res)));
    res.json(customerView(row));
  });

  router.put('/:id', async (req, res) => {
    const row = await customerInCompanies(db, req.params.id, reachableBy(db, authOf(res)));
    const input = customerInput(req.body);
    res.json(await replaceCustomer(db, clock, row, input));
  });

  return router;
}

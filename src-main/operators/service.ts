// Operators (issue 13 item 1): managing them, signing them in with code + PIN, wrong-PIN lockout, the
// single-use supervisor authorizations and the audit of what they did.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { isUniqueViolation } from '../db/dialect.ts';
import { newId } from '../ids.ts';
import { DomainError, conflict, forbidden, notFound } from '../errors.ts';
import type {
  OperatorActionView,
  OperatorCreate,
  OperatorRef,
  OperatorUpdate,
  OperatorView,
} from '../../src-shared/contracts/operators.ts';
import { ACTION_LABELS, canAuthorize, type OperatorAction } from '../../src-shared/tables/operator-roles.ts';
import { decoyHash, hashPin, verifyPin } from './pin.ts';
import { operatorsRepository, type OperatorActionRow, type OperatorRow } from './repository.ts';

/** Wrong PINs in a row that lock the operator. */
export const MAX_WRONG_PINS = 5;
/** The first lock lasts 5 minutes; each further one doubles, up to an hour. */
export const FIRST_LOCK_MS = 5 * 60_000;
export const MAX_LOCK_MS = 60 * 60_000;
export const SESSION_MS = 12 * 60 * 60_000;
export const AUTHORIZATION_MS = 2 * 60_000;
export const DEFAULT_CAIXA = '1';

export function operatorView(row: OperatorRow): OperatorView {
  return {
    id: row.id,
    codigo: row.codigo,
    nome: row.nome,
    papel: row.papel,
    ativo: row.ativo === 1,
    bloqueado_ate: row.bloqueado_ate,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const operatorRef = (row: Pick<OperatorRow, 'id' | 'codigo' | 'nome'>): OperatorRef => ({
  id: row.id,
  codigo: row.codigo,
  nome: row.nome,
});

/** The operators the notes name, by id, for `operador` of the document view. */
export async function operatorRefsOf(
  db: Db,
  docs: ReadonlyArray<{ operator_id?: string | null }>,
): Promise<Map<string, OperatorRef>> {
  const ids = [...new Set(docs.flatMap((d) => (d.operator_id == null ? [] : [d.operator_id])))];
  return new Map((await operatorsRepository.findByIds(db, ids)).map((o) => [o.id, operatorRef(o)]));
}

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export async function listOperators(db: Db, companyId: string, ativo: boolean | undefined) {
  return (await operatorsRepository.list(db, companyId, ativo)).map(operatorView);
}

/** 404 when no such operator exists; 403 when it belongs to a company the key cannot reach. */
export async function operatorInCompanies(
  db: Db,
  id: string,
  reachable: (companyId: string) => Promise<boolean>,
): Promise<OperatorRow> {
  const row = await operatorsRepository.findById(db, id);
  if (row === undefined) throw notFound('Operator');
  if (!(await reachable(row.company_id))) throw forbidden();
  return row;
}

const codigoTaken = (codigo: string) =>
  conflict(`Operator code ${codigo} is already in use in this company.`, [
    { field: 'codigo', error: `code ${codigo} is taken` },
  ]);

export async function createOperator(
  db: Db,
  clock: Clock,
  companyId: string,
  input: OperatorCreate,
): Promise<OperatorView> {
  // Hashed before the write: the slow hash must not hold the database's write lock.
  const pinHash = await hashPin(input.pin);
  const now = clock.now().toISOString();
  const codigo = input.codigo ?? String((await operatorsRepository.maxCodigo(db, companyId)) + 1);
  if (codigo.length > 6)
    throw conflict('No free operator code of up to 6 digits is left: give one in codigo.');
  if ((await operatorsRepository.findByCodigo(db, companyId, codigo)) !== undefined)
    throw codigoTaken(codigo);
  const row: OperatorRow = {
    id: newId(),
    company_id: companyId,
    codigo,
    nome: input.nome,
    papel: input.papel,
    pin_hash: pinHash,
    ativo: 1,
    failed_pins: 0,
    lock_count: 0,
    bloqueado_ate: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await operatorsRepository.insert(db, row);
  } catch (error) {
    // Two creations racing for the same code: the unique index decides.
    if (isUniqueViolation(error)) throw codigoTaken(codigo);
    throw error;
  }
  return operatorView(row);
}

export async function updateOperator(
  db: Db,
  clock: Clock,
  row: OperatorRow,
  input: OperatorUpdate,
): Promise<OperatorView> {
  const now = clock.now().toISOString();
  const changes: Partial<OperatorRow> = { updated_at: now };
  if (input.nome !== undefined) changes.nome = input.nome;
  if (input.papel !== undefined) changes.papel = input.papel;
  if (input.ativo !== undefined) changes.ativo = input.ativo ? 1 : 0;
  if (input.pin !== undefined) {
    changes.pin_hash = await hashPin(input.pin);
    // A new PIN given by a manager is the way out of a lock.
    changes.failed_pins = 0;
    changes.lock_count = 0;
    changes.bloqueado_ate = null;
  }
  await operatorsRepository.update(db, row.id, changes);
  // A role or PIN change, or a deactivation, ends the open sessions: the next sign-in gets the new rights.
  if (input.ativo === false || input.papel !== undefined || input.pin !== undefined)
    await operatorsRepository.endSessionsOf(db, row.id, now);
  return operatorView({ ...row, ...changes });
}

export async function deactivateOperator(db: Db, clock: Clock, row: OperatorRow): Promise<void> {
  const now = clock.now().toISOString();
  await operatorsRepository.update(db, row.id, { ativo: 0, updated_at: now });
  await operatorsRepository.endSessionsOf(db, row.id, now);
}

function lockedError(until: string, now: Date): DomainError {
  const seconds = Math.max(1, Math.ceil((Date.parse(until) - now.getTime()) / 1000));
  return new DomainError(
    'operador_bloqueado',
    `Operador bloqueado por PINs errados até ${until}; tente de novo depois disso ou peça ao gerente um novo PIN.`,
    [{ field: 'pin', error: `bloqueado até ${until}` }],
    { retryAfterSeconds: seconds },
  );
}

/**
 * The operator of `codigo` when `pin` is theirs. Wrong PINs are counted; the fifth in a row locks the
 * operator (423), 5 minutes the first time and twice as long each further time, at most an hour. An unknown
 * or inactive code costs a hash check too, so timing does not reveal which codes exist.
 */
export async function checkPin(
  db: Db,
  clock: Clock,
  companyId: string,
  codigo: string,
  pin: string,
): Promise<OperatorRow> {
  const row = await operatorsRepository.findByCodigo(db, companyId, codigo);
  if (row === undefined || row.ativo !== 1) {
    await verifyPin(pin, await decoyHash());
    throw new DomainError('pin_invalido', 'Código de operador desconhecido ou inativo.', [
      { field: 'codigo', error: 'nenhum operador ativo com este código' },
    ]);
  }
  const now = clock.now();
  if (row.bloqueado_ate !== null && Date.parse(row.bloqueado_ate) > now.getTime())
    throw lockedError(row.bloqueado_ate, now);
  if (await verifyPin(pin, row.pin_hash)) {
    if (row.failed_pins !== 0 || row.lock_count !== 0 || row.bloqueado_ate !== null) {
      await operatorsRepository.update(db, row.id, { failed_pins: 0, lock_count: 0, bloqueado_ate: null });
      return { ...row, failed_pins: 0, lock_count: 0, bloqueado_ate: null };
    }
    return row;
  }
  const nowIso = now.toISOString();
  const counted = await operatorsRepository.countWrongPin(db, row.id, nowIso);
  if (counted.failed_pins >= MAX_WRONG_PINS) {
    const lockMs = Math.min(FIRST_LOCK_MS * 2 ** counted.lock_count, MAX_LOCK_MS);
    const until = new Date(now.getTime() + lockMs).toISOString();
    await operatorsRepository.update(db, row.id, {
      failed_pins: 0,
      lock_count: counted.lock_count + 1,
      bloqueado_ate: until,
      updated_at: nowIso,
    });
    throw lockedError(until, now);
  }
  const left = MAX_WRONG_PINS - counted.failed_pins;
  throw new DomainError('pin_invalido', 'PIN incorreto.', [
    {
      field: 'pin',
      error: `PIN incorreto: ${left} ${left === 1 ? 'tentativa restante' : 'tentativas restantes'}`,
    },
  ]);
}

export interface SignedIn {
  operador: OperatorView;
  token: string;
  caixa: string;
  expira_em: string;
}

export async function signIn(
  db: Db,
  clock: Clock,
  companyId: string,
  input: { codigo: string; pin: string; caixa?: string | undefined },
): Promise<SignedIn> {
  const row = await checkPin(db, clock, companyId, input.codigo, input.pin);
  const token = `op_${randomBytes(32).toString('base64url')}`;
  const now = clock.now();
  const expires = new Date(now.getTime() + SESSION_MS).toISOString();
  const caixa = input.caixa ?? DEFAULT_CAIXA;
  await operatorsRepository.insertSession(db, {
    id: newId(),
    token_hash: tokenHash(token),
    operator_id: row.id,
    caixa,
    created_at: now.toISOString(),
    expires_at: expires,
    ended_at: null,
  });
  return { operador: operatorView(row), token, caixa, expira_em: expires };
}

export interface OperatorSession {
  operator: OperatorRow;
  caixa: string;
  sessionId: string;
  expiresAt: string;
}

/** The signed-in operator of a token; null when the token is unknown, expired, ended or its operator inactive. */
export async function resolveSession(db: Db, clock: Clock, token: string): Promise<OperatorSession | null> {
  const session = await operatorsRepository.findSessionByHash(db, tokenHash(token));
  if (session === undefined || session.ended_at !== null) return null;
  if (Date.parse(session.expires_at) <= clock.now().getTime()) return null;
  const operator = await operatorsRepository.findById(db, session.operator_id);
  if (operator === undefined || operator.ativo !== 1) return null;
  return { operator, caixa: session.caixa, sessionId: session.id, expiresAt: session.expires_at };
}

export async function signOut(db: Db, clock: Clock, sessionId: string): Promise<void> {
  await operatorsRepository.endSession(db, sessionId, clock.now().toISOString());
}

export interface Authorized {
  autorizacao: string;
  supervisor: OperatorView;
  acao: OperatorAction;
  expira_em: string;
}

/** A supervisor's approval of one action: checked like a sign-in, single use, valid 2 minutes. */
export async function authorize(
  db: Db,
  clock: Clock,
  companyId: string,
  input: { codigo: string; pin: string; acao: OperatorAction },
  askedBy: OperatorRow | null,
): Promise<Authorized> {
  const supervisor = await checkPin(db, clock, companyId, input.codigo, input.pin);
  if (!canAuthorize(supervisor.papel, input.acao)) {
    throw new DomainError(
      'papel_insuficiente',
      `O papel ${supervisor.papel} não pode autorizar ${ACTION_LABELS[input.acao]}.`,
      [{ field: 'codigo', error: `papel ${supervisor.papel} não autoriza ${input.acao}` }],
    );
  }
  const token = `aut_${randomBytes(32).toString('base64url')}`;
  const now = clock.now();
  const expires = new Date(now.getTime() + AUTHORIZATION_MS).toISOString();
  await operatorsRepository.insertAuthorization(db, {
    id: newId(),
    token_hash: tokenHash(token),
    supervisor_id: supervisor.id,
    operator_id: askedBy?.id ?? null,
    acao: input.acao,
    used_at: null,
    expires_at: expires,
    document_id: null,
    created_at: now.toISOString(),
  });
  return { autorizacao: token, supervisor: operatorView(supervisor), acao: input.acao, expira_em: expires };
}

/** Why an authorization token cannot be used, for the error's detail; null when it can. */
export type AuthorizationProblem = 'desconhecida' | 'usada' | 'expirada' | 'outra_acao';

/**
 * The supervisor of an unused, unexpired authorization for `acao` in `companyId`, or why it cannot be used.
 * Nothing is consumed: `consumeAuthorization` does that once every approval a request needs was found.
 */
export async function findUsableAuthorization(
  db: Db,
  clock: Clock,
  companyId: string,
  token: string,
  acao: OperatorAction,
  check?: (supervisor: OperatorRow) => boolean,
): Promise<
  | { authorizationId: string; supervisor: OperatorRow }
  | { problem: AuthorizationProblem | 'limite_supervisor' }
> {
  const row = await operatorsRepository.findAuthorizationByHash(db, tokenHash(token));
  if (row === undefined) return { problem: 'desconhecida' };
  const supervisor = await operatorsRepository.findById(db, row.supervisor_id);
  if (supervisor === undefined || supervisor.company_id !== companyId || supervisor.ativo !== 1)
    return { problem: 'desconhecida' };
  if (row.acao !== acao) return { problem: 'outra_acao' };
  if (row.used_at !== null) return { problem: 'usada' };
  if (Date.parse(row.expires_at) <= clock.now().getTime()) return { problem: 'expirada' };
  if (check !== undefined && !check(supervisor)) return { problem: 'limite_supervisor' };
  return { authorizationId: row.id, supervisor };
}

/** Marks an authorization used; false when another request used it first (single use). */
export function consumeAuthorization(db: Db, clock: Clock, authorizationId: string): Promise<boolean> {
  return operatorsRepository.useAuthorization(db, authorizationId, clock.now().toISOString(), null);
}

/** Links used authorizations to the note they approved, once the note exists. */
export async function linkAuthorizationsToDocument(
  db: Db,
  authorizationIds: readonly string[],
  documentId: string,
): Promise<void> {
  if (authorizationIds.length === 0) return;
  await db
    .updateTable('operator_authorizations')
    .set({ document_id: documentId })
    .where('id', 'in', [...authorizationIds])
    .execute();
}

export async function recordAction(
  db: Db,
  clock: Clock,
  entry: {
    companyId: string;
    operatorId: string;
    acao: string;
    documentId?: string | null;
    authorizedBy?: string | null;
    detalhe?: unknown;
  },
): Promise<OperatorActionRow> {
  const row: OperatorActionRow = {
    id: newId(),
    company_id: entry.companyId,
    operator_id: entry.operatorId,
    acao: entry.acao,
    document_id: entry.documentId ?? null,
    authorized_by: entry.authorizedBy ?? null,
    detalhe: entry.detalhe === undefined ? null : JSON.stringify(entry.detalhe),
    created_at: clock.now().toISOString(),
  };
  await operatorsRepository.insertAction(db, row);
  return row;
}

export async function listActions(
  db: Db,
  companyId: string,
  filter: { documentId?: string; operatorId?: string },
): Promise<OperatorActionView[]> {
  const rows = await operatorsRepository.listActions(db, companyId, filter);
  const people = new Map(
    (
      await operatorsRepository.findByIds(db, [
        ...new Set(
          rows.flatMap((r) => [r.operator_id, ...(r.authorized_by === null ? [] : [r.authorized_by])]),
        ),
      ])
    ).map((o) => [o.id, o]),
  );
  const ref = (id: string): OperatorRef => {
    const o = people.get(id);
    return o === undefined ? { id, codigo: '', nome: '' } : operatorRef(o);
  };
  return rows.map((r) => ({
    id: r.id,
    acao: r.acao,
    operador: ref(r.operator_id),
    autorizado_por: r.authorized_by === null ? null : ref(r.authorized_by),
    document_id: r.document_id,
    detalhe: r.detalhe === null ? null : (JSON.parse(r.detalhe) as unknown),
    created_at: r.created_at,
  }));
}

/** The demo company's two operators (README names them); added only when the company has none at all. */
export const DEMO_OPERATORS: readonly OperatorCreate[] = [
  { codigo: '1', nome: 'Gerente Demo', papel: 'gerente', pin: '4826' },
  { codigo: '2', nome: 'Caixa Demo', papel: 'caixa', pin: '3971' },
];

export async function ensureDemoOperators(db: Db, clock: Clock, companyId: string): Promise<boolean> {
  if ((await operatorsRepository.count(db, companyId)) > 0) return false;
  // The two slow hashes run side by side on libuv's pool; the codes are given, so nothing races for one.
  await Promise.all(DEMO_OPERATORS.map((operator) => createOperator(db, clock, companyId, operator)));
  return true;
}

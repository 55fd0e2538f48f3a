// API keys (seed §5): generation, hashed storage, authentication, rotation with grace, expiry and revocation.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import { DomainError, forbidden, notFound, validationError } from '../errors.ts';
import {
  RATE_PLANS,
  type RatePlan,
  type ApiKeyCreate,
  type ApiKeyCreated,
  type ApiKeyView,
} from '../../src-shared/contracts/api-keys.ts';
import { apiKeysRepository, type ApiKeyRow } from './repository.ts';
import { companiesRepository } from '../companies/repository.ts';

const KEY_PREFIX = 'blc';

export interface AuthContext {
  keyId: string;
  scope: 'company' | 'organization';
  organizationId: string;
  companyId: string | null;
  ratePerSecond: number;
  ratePerMinute: number;
  lastUsedAt: string | null;
  plan: RatePlan;
  expiresAt: string | null;
  /** Rotated and its successor exists: the key only finishes its own work until the grace ends. */
  inGrace: boolean;
}

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked';

/** Plans ordered from least to most capacity: a key hands out at most its own. */
const PLAN_RANK: Record<RatePlan, number> = { basic: 0, standard: 1, terminal: 2 };

function planOf(stored: string): RatePlan {
  // A plan name the code no longer knows is treated as the lowest, so it can never be escalated from.
  return stored in PLAN_RANK ? (stored as RatePlan) : 'basic';
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function toView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    organizationId: row.organization_id,
    companyId: row.company_id,
    plan: row.plan,
    ratePerSecond: row.rate_per_second,
    ratePerMinute: row.rate_per_minute,
    prefix: `${KEY_PREFIX}_${row.lookup}`,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    replacedBy: row.replaced_by,
    lastUsedAt: row.last_used_at,
  };
}

function mintKey(): { key: string; lookup: string; secretHash: string } {
  const lookup = randomBytes(8).toString('hex');
  const key = `${KEY_PREFIX}_${lookup}_${randomBytes(32).toString('base64url')}`;
  return { key, lookup, secretHash: hashKey(key) };
}

export async function createOrganization(
  db: Db,
  clock: Clock,
  name: string,
): Promise<{ id: string; name: string }> {
  const row = { id: newId(), name, created_at: clock.now().toISOString() };
  await apiKeysRepository.insertOrganization(db, row);
  return { id: row.id, name: row.name };
}

/** Creates a key inside `organizationId`; the plain key is returned once and never stored. */
export async function createApiKey(
  db: Db,
  clock: Clock,
  organizationId: string,
  input: ApiKeyCreate,
): Promise<ApiKeyCreated> {
  if (input.companyId !== undefined) {
    const company = await companiesRepository.findById(db, input.companyId);
    if (company === undefined || company.organization_id !== organizationId) {
      throw forbidden('The company is not in this organization.');
    }
  }
  const minted = mintKey();
  const planName = input.plan ?? 'standard';
  const plan = RATE_PLANS[planName];
  const row: ApiKeyRow = {
    id: newId(),
    lookup: minted.lookup,
    secret_hash: minted.secretHash,
    name: input.name,
    scope: input.scope,
    organization_id: organizationId,
    company_id: input.companyId ?? null,
    plan: planName,
    rate_per_second: plan.perSecond,
    rate_per_minute: plan.perMinute,
    created_at: clock.now().toISOString(),
    expires_at: input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(),
    revoked_at: null,
    replaced_by: null,
    last_used_at: null,
  };
  await apiKeysRepository.insert(db, row);
  return { ...toView(row), key: minted.key };
}

/**
 * Creation through the API: the creating key hands out nothing it does not have itself — scope (a company key
 * creates only keys of its company), plan (equal or lower; omitted means the lower of `standard` and its own)
 * and lifetime (a key that expires creates keys that expire no later). A key in its rotation grace creates
 * nothing. An `expiresAt` already past is a field error.
 */
export async function createApiKeyAs(
  db: Db,
  clock: Clock,
  auth: AuthContext,
  input: ApiKeyCreate,
): Promise<ApiKeyCreated> {
  refuseInGrace(auth, 'create keys');
  const now = clock.now();
  if (input.expiresAt !== undefined && new Date(input.expiresAt).getTime() <= now.getTime()) {
    throw validationError([{ field: 'expiresAt', error: 'must be in the future' }]);
  }
  if (auth.scope === 'company' && (input.scope !== 'company' || input.companyId !== auth.companyId)) {
    throw forbidden('A company key can only create keys for its own company.');
  }
  const plan = input.plan ?? (PLAN_RANK[auth.plan] < PLAN_RANK.standard ? auth.plan : ('standard' as const));
  if (PLAN_RANK[plan] > PLAN_RANK[auth.plan]) {
    throw new DomainError('forbidden', `A '${auth.plan}' key cannot create a '${plan}' key.`, [
      { field: 'plan', error: `must be '${auth.plan}' or lower` },
    ]);
  }
  let expiresAt = input.expiresAt;
  if (auth.expiresAt !== null) {
    if (expiresAt === undefined) expiresAt = auth.expiresAt;
    else if (new Date(expiresAt).getTime() > new Date(auth.expiresAt).getTime()) {
      throw new DomainError('forbidden', 'A key cannot create a key that outlives it.', [
        { field: 'expiresAt', error: `must be no later than ${auth.expiresAt}` },
      ]);
    }
  }
  return createApiKey(db, clock, auth.organizationId, {
    ...input,
    plan,
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
}

function refuseInGrace(auth: AuthContext, action: string): void {
  if (auth.inGrace) {
    throw forbidden(
      `This key was rotated and only finishes its own work until its grace ends; it cannot ${action}.`,
    );
  }
}

export async function authenticate(
  db: Db,
  clock: Clock,
  presented: string | undefined,
): Promise<{ ok: true; auth: AuthContext } | { ok: false; reason: AuthFailure }> {
  if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
  const match = /^blc_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/.exec(presented);
  if (match === null) return { ok: false, reason: 'malformed' };
  const row = await apiKeysRepository.findByLookup(db, match[1] as string);
  if (row === undefined) return { ok: false, reason: 'unknown' };
  const expected = Buffer.from(row.secret_hash, 'hex');
  const actual = Buffer.from(hashKey(presented), 'hex');
  if (!timingSafeEqual(expected, actual)) return { ok: false, reason: 'unknown' };
  if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
  const now = clock.now();
  if (row.expires_at !== null && new Date(row.expires_at).getTime() <= now.getTime()) {
    return { ok: false, reason: 'expired' };
  }
  return {
    ok: true,
    auth: {
      keyId: row.id,
      scope: row.scope,
      organizationId: row.organization_id,
      companyId: row.company_id,
      ratePerSecond: row.rate_per_second,
      ratePerMinute: row.rate_per_minute,
      lastUsedAt: row.last_used_at,
      plan: planOf(row.plan),
      expiresAt: row.expires_at,
      inGrace: row.replaced_by !== null,
    },
  };
}

/** Records use at most once a minute per key so that authentication is not a write per request. */
export async function touchKey(
  db: Db,
  clock: Clock,
  keyId: string,
  lastUsedAt: string | null,
): Promise<void> {
  const now = clock.now();
  if (lastUsedAt !== null && now.getTime() - new Date(lastUsedAt).getTime() < 60_000) return;
  await apiKeysRepository.update(db, keyId, { last_used_at: now.toISOString() });
}

async function keyVisibleTo(db: Db, auth: AuthContext, keyId: string): Promise<ApiKeyRow> {
  const row = await apiKeysRepository.findById(db, keyId);
  if (row === undefined) throw notFound('API key');
  const visible =
    row.organization_id === auth.organizationId &&
    (auth.scope === 'organization' || row.company_id === auth.companyId);
  if (!visible) throw forbidden();
  return row;
}

export async function getApiKey(db: Db, auth: AuthContext, keyId: string): Promise<ApiKeyView> {
  return toView(await keyVisibleTo(db, auth, keyId));
}

export async function listApiKeys(db: Db, auth: AuthContext, page: number, pageSize: number) {
  const { rows, total } = await apiKeysRepository.listByOrganization(
    db,
    auth.organizationId,
    auth.companyId,
    page,
    pageSize,
  );
  return { items: rows.map(toView), total };
}

/**
 * Issues a successor with the same scope and plan; the old key keeps working until `graceSeconds` from now
 * (or its own earlier expiry), so terminals can be reconfigured without a stop.
 */
export async function rotateApiKey(
  db: Db,
  clock: Clock,
  keyId: string,
  graceSeconds: number,
): Promise<ApiKeyCreated> {
  return inTransaction(db, async (trx) => {
    const old = await apiKeysRepository.findById(trx, keyId);
    if (old === undefined) throw notFound('API key');
    if (old.revoked_at !== null) throw new DomainError('invalid_state', 'A revoked key cannot be rotated.');
    const now = clock.now();
    if (old.expires_at !== null && new Date(old.expires_at) <= now) {
      throw new DomainError('invalid_state', 'An expired key cannot be rotated.');
    }
    const minted = mintKey();
    const successor: ApiKeyRow = {
      ...old,
      id: newId(),
      lookup: minted.lookup,
      secret_hash: minted.secretHash,
      created_at: now.toISOString(),
      replaced_by: null,
      last_used_at: null,
    };
    await apiKeysRepository.insert(trx, successor);
    const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
    const oldExpiry =
      old.expires_at === null
        ? graceEnd
        : new Date(Math.min(graceEnd.getTime(), new Date(old.expires_at).getTime()));
    await apiKeysRepository.update(trx, old.id, {
      expires_at: oldExpiry.toISOString(),
      replaced_by: successor.id,
    });
    return { ...toView(successor), key: minted.key };
  });
}

export async function revokeApiKey(db: Db, clock: Clock, keyId: string): Promise<ApiKeyView> {
  const row = await apiKeysRepository.findById(db, keyId);
  if (row === undefined) throw notFound('API key');
  const revokedAt = row.revoked_at ?? clock.now().toISOString();
  await apiKeysRepository.update(db, keyId, { revoked_at: revokedAt });
  return toView({ ...row, revoked_at: revokedAt });
}

/**
 * Used by the HTTP layer before rotate/revoke: a key manages only keys it can see, and none while it is in its
 * own rotation grace. Rotating mints a successor with the target's plan and expiry, so a key rotates only keys
 * it could have created: plan equal or lower, and no longer-lived than itself.
 */
export async function assertKeyManageable(
  db: Db,
  auth: AuthContext,
  keyId: string,
  action: 'rotate' | 'revoke',
): Promise<void> {
  refuseInGrace(auth, `${action} keys`);
  const row = await keyVisibleTo(db, auth, keyId);
  if (action !== 'rotate' || row.id === auth.keyId) return;
  if (PLAN_RANK[planOf(row.plan)] > PLAN_RANK[auth.plan]) {
    throw forbidden(`A '${auth.plan}' key cannot rotate a '${row.plan}' key.`);
  }
  if (
    auth.expiresAt !== null &&
    (row.expires_at === null || new Date(row.expires_at).getTime() > new Date(auth.expiresAt).getTime())
  ) {
    throw forbidden('A key cannot rotate a key that outlives it.');
  }
}

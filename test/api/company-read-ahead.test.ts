// The company the idempotency middleware reads serves the handler's first read of it, and only that one: a
// later read (after the handler changed the company, say) reads the row again.
import type { Request, Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src-main/api-keys/service.ts';
import { companyOfRequest, companyOfRequestAhead } from '../../src-main/api/routes/scoping.ts';
import { companiesRepository } from '../../src-main/companies/repository.ts';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

function companyRequest(auth: AuthContext, companyId: string): { req: Request; res: Response } {
  const req = { query: {}, get: (name: string) => (name === 'X-Company-Id' ? companyId : undefined) };
  return { req: req as unknown as Request, res: { locals: { auth } } as unknown as Response };
}

function organizationKey(organizationId: string): AuthContext {
  return {
    keyId: 'test',
    scope: 'organization',
    organizationId,
    companyId: null,
    ratePerSecond: 50,
    ratePerMinute: 3000,
    lastUsedAt: null,
    plan: 'terminal',
    expiresAt: null,
    inGrace: false,
  };
}

describe('the company read ahead of the handler', () => {
  it("is the handler's first read of the company, and the next read sees the row as it is", async () => {
    const db = h.service.db;
    const stored = await companiesRepository.findById(db, h.companyId);
    if (stored === undefined) throw new Error('no demo company');
    const auth = organizationKey(stored.organization_id);
    const { req, res } = companyRequest(auth, h.companyId);
    const ahead = await companyOfRequestAhead(db, req, res);
    await companiesRepository.update(db, h.companyId, { x_fant: 'Renamed after the read' });

    expect(await companyOfRequest(db, req, res)).toBe(ahead);
    const again = await companyOfRequest(db, req, res);
    expect(again).not.toBe(ahead);
    expect(again.x_fant).toBe('Renamed after the read');
  });

  it('is not taken for another request, and a forbidden company is refused ahead as it would be after', async () => {
    const db = h.service.db;
    const stored = await companiesRepository.findById(db, h.companyId);
    if (stored === undefined) throw new Error('no demo company');
    const stranger = organizationKey('another organization');
    const { req, res } = companyRequest(stranger, h.companyId);
    await expect(companyOfRequestAhead(db, req, res)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(companyOfRequest(db, req, res)).rejects.toMatchObject({ code: 'forbidden' });

    const own = companyRequest(organizationKey(stored.organization_id), h.companyId);
    const ahead = await companyOfRequestAhead(db, own.req, own.res);
    const other = companyRequest(organizationKey(stored.organization_id), h.companyId);
    expect(await companyOfRequest(db, other.req, other.res)).not.toBe(ahead);
  });
});

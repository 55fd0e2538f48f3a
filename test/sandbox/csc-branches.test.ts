// The sandbox authority keeps each establishment's CSCs under its full CNPJ: two branches of one CNPJ root
// may register the same CSC id with different tokens and both authorize, and a row an earlier release kept
// under the 8-character root still answers for a branch with none of its own.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src-main/db/client.ts';
import { startSandboxAuthority } from '../../src-main/sandbox/server.ts';
import type { SandboxDatabase } from '../../src-main/sandbox/store.ts';
import type { SandboxAuthority } from '../../src-main/sandbox/server.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { emitter } from '../fixtures/fiscal.ts';
import {
  closedAfterEach,
  CSC,
  cStatFor,
  EMIT_CNPJ,
  nfce,
  startSandbox,
  tempDir,
  type Sandbox,
} from './harness.ts';

const opened = closedAfterEach();

/** The second establishment of the emitter's root (…/0002), signed with the same e-CNPJ certificate. */
const BRANCH_BASE = `${EMIT_CNPJ.slice(0, 8)}0002`;
const BRANCH_CNPJ = BRANCH_BASE + cnpjCheckDigits(BRANCH_BASE);
const BRANCH_TOKEN = 'FILIAL0123456789ABCDEFGHIJKLMNOPQR';

function sell(authority: SandboxAuthority, cnpj: string, token: string): Promise<string> {
  const note = nfce({
    emit: { ...emitter(), CNPJ: cnpj },
    nfce: { qrVersion: 2, cscId: CSC.id, csc: token },
  });
  return cStatFor(authority, note.xml);
}

describe('CSCs per establishment in the sandbox authority', () => {
  it('two branches with the same CSC id and different tokens both authorize', async () => {
    const sb: Sandbox = await startSandbox();
    opened.push(sb);
    // The head office's CSC is registered by the harness; the branch registers its own under the same id.
    await sb.authority.registry.setCsc(BRANCH_CNPJ, CSC.id, BRANCH_TOKEN);
    expect(await sell(sb.authority, EMIT_CNPJ, CSC.token)).toBe('100');
    expect(await sell(sb.authority, BRANCH_CNPJ, BRANCH_TOKEN)).toBe('100');
    // Each checks against its own token: the head office's token does not sign for the branch.
    expect(await sell(sb.authority, BRANCH_CNPJ, CSC.token)).toBe('464');
    // Revoking the branch's CSC leaves the head office's alone.
    await sb.authority.registry.revokeCsc(BRANCH_CNPJ, CSC.id);
    expect(await sell(sb.authority, BRANCH_CNPJ, BRANCH_TOKEN)).toBe('463');
    expect(await sell(sb.authority, EMIT_CNPJ, CSC.token)).toBe('100');
  });

  it('a CSC an earlier release stored under the CNPJ root still answers for the establishments', async () => {
    const dataFile = path.join(tempDir(), 'authority.sqlite');
    await (await startSandbox({ dataFile })).close();
    const legacy = openSqlite<SandboxDatabase>(dataFile);
    await legacy.db
      .updateTable('cscs')
      .set({ cnpj: EMIT_CNPJ.slice(0, 8) })
      .execute();
    await legacy.close();

    // Opened without registering again (the harness would): only the root's row is there.
    const authority = await startSandboxAuthority({ dataFile });
    opened.push(authority);
    expect(await sell(authority, EMIT_CNPJ, CSC.token)).toBe('100');
    // Once the establishment registers its own, that one is used.
    await authority.registry.setCsc(EMIT_CNPJ, CSC.id, BRANCH_TOKEN);
    expect(await sell(authority, EMIT_CNPJ, CSC.token)).toBe('464');
    expect(await sell(authority, EMIT_CNPJ, BRANCH_TOKEN)).toBe('100');
  });
});

// The API key the desktop UI uses: an organization key the shell creates for itself on first start and keeps
// sealed with the master key, so it works on any data dir (sandbox or production) and survives restarts.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { authenticate, createApiKey } from '../api-keys/service.ts';
import { apiKeysRepository } from '../api-keys/repository.ts';
import { companiesRepository } from '../companies/repository.ts';

export const DESKTOP_KEY_FILE = 'desktop-key.json';
/** The name the key shows in the API keys screen, so the owner knows what revoking it stops. */
export const DESKTOP_KEY_NAME = 'aplicativo desktop';

interface StoredDesktopKey {
  keyId: string;
  organizationId: string;
  /** The plain key sealed with the master key (secret-box format). */
  sealedKey: string;
}

export interface DesktopKey {
  apiKey: string;
  keyId: string;
  organizationId: string;
  /** True when this start created the key (first start, or the old one was revoked or expired). */
  created: boolean;
}

function readStored(file: string): StoredDesktopKey | null {
  if (!fs.existsSync(file)) return null;
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<StoredDesktopKey>;
    if (typeof parsed.keyId !== 'string' || typeof parsed.sealedKey !== 'string') return null;
    if (typeof parsed.organizationId !== 'string') return null;
    return { keyId: parsed.keyId, organizationId: parsed.organizationId, sealedKey: parsed.sealedKey };
  } catch {
    return null;
  }
}

async function organizationFor(db: Db, preferredCompanyId: string | null): Promise<string> {
  if (preferredCompanyId !== null) {
    const company = await companiesRepository.findById(db, preferredCompanyId);
    if (company !== undefined) return company.organization_id;
  }
  // A till serves one organization; with several, the oldest is the one the data dir was set up for.
  const [first] = await apiKeysRepository.listOrganizations(db);
  if (first === undefined) throw new Error('the data dir has no organization to create the desktop key in');
  return first.id;
}

/**
 * Returns the stored desktop key while it still authenticates as an organization key; otherwise creates one
 * in the organization of `preferredCompanyId` (the sandbox company on a fresh data dir) and stores it.
 */
export async function ensureDesktopApiKey(
  deps: { db: Db; clock: Clock; secrets: SecretBox },
  dataDir: string,
  preferredCompanyId: string | null,
): Promise<DesktopKey> {
  const { db, clock, secrets } = deps;
  const file = path.join(dataDir, DESKTOP_KEY_FILE);
  const stored = readStored(file);
  if (stored !== null) {
    let apiKey: string | null = null;
    try {
      apiKey = secrets.openText(stored.sealedKey);
    } catch {
      // Sealed under another master key (a copied file): make a new key rather than fail the start.
    }
    if (apiKey !== null) {
      const result = await authenticate(db, clock, apiKey);
      if (result.ok && result.auth.scope === 'organization') {
        return {
          apiKey,
          keyId: result.auth.keyId,
          organizationId: result.auth.organizationId,
          created: false,
        };
      }
    }
  }

  const organizationId = await organizationFor(db, preferredCompanyId);
  const created = await createApiKey(db, clock, organizationId, {
    name: DESKTOP_KEY_NAME,
    scope: 'organization',
    plan: 'terminal',
  });
  const body: StoredDesktopKey = { keyId: created.id, organizationId, sealedKey: secrets.seal(created.key) };
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { apiKey: created.key, keyId: created.id, organizationId, created: true };
}

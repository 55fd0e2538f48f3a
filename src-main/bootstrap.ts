// First-start sandbox bootstrap: a demo company on the embedded sandbox authority with a generated test A1,
// a CSC, default series and an API key, written to <data dir>/sandbox.json so a newcomer can issue at once.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import { inTransaction, type Db } from './db/client.ts';
import { isPostgres } from './db/dialect.ts';
import type { SecretBox } from './security/secret-box.ts';
import { apiKeysRepository } from './api-keys/repository.ts';
import { createApiKey, createOrganization } from './api-keys/service.ts';
import { createCompany, uploadCertificate } from './companies/service.ts';
import { companiesRepository } from './companies/repository.ts';
import { canonicalId } from './ids.ts';
import { generateTestA1 } from './fiscal/certificate.ts';
import { DATABASE_FILE, EmptiedInstallError, installTraces } from './data-dir.ts';
import { companyCreateSchema } from '../src-shared/contracts/companies.ts';
import { ensureDemoOperators } from './operators/service.ts';

const DAY_MS = 86_400_000;

export interface SandboxInfo {
  baseUrl: string;
  /** A company key of the demo company: what the specification's operations carry (seed §5). */
  apiKey: string;
  companyId: string;
  /** The organization's key: creates companies and keys; reaches the demo company without companyId while it is the only one. */
  organizationApiKey: string;
}

export interface BootstrapResult {
  created: boolean;
  /** null when the data dir has companies but no sandbox.json (the key cannot be recovered from its hash). */
  sandbox: SandboxInfo | null;
  lines: string[];
}

/** A valid CNPJ reserved for the demo company (check digits 95). */
export const DEMO_CNPJ = '12345678000195';

/** The demo company's IE before issue 14: its check digits are wrong for SP. */
const OLD_DEMO_IE = '111222333444';

const DEMO_COMPANY = {
  cnpj: DEMO_CNPJ,
  ie: '111222330446',
  xNome: 'BALCAO DEMONSTRACAO LTDA',
  xFant: 'Balcao Demo',
  crt: 1,
  endereco: {
    xLgr: 'Avenida Paulista',
    nro: '1000',
    xBairro: 'Bela Vista',
    cMun: '3550308',
    uf: 'SP',
    cep: '01310100',
    fone: '1130000000',
  },
  ambiente: 'homologacao',
  authority: 'sandbox',
} as const;

function sandboxFile(dataDir: string): string {
  return path.join(dataDir, 'sandbox.json');
}

function writeSandboxJson(dataDir: string, info: SandboxInfo): void {
  const file = sandboxFile(dataDir);
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export async function bootstrapSandbox(
  deps: { db: Db; clock: Clock; secrets: SecretBox },
  dataDir: string,
  baseUrl: string,
): Promise<BootstrapResult> {
  const { db, clock } = deps;
  const organizations = await apiKeysRepository.listOrganizations(db);
  if (organizations.length > 0) {
    const file = sandboxFile(dataDir);
    if (!fs.existsSync(file)) {
      return {
        created: false,
        sandbox: null,
        lines: ['Existing data dir without sandbox.json: create API keys with `npm run cli -- key create`.'],
      };
    }
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SandboxInfo> &
      Omit<SandboxInfo, 'organizationApiKey'>;
    let info: SandboxInfo;
    // An earlier release wrote the demo company's prefixed id; the row carries its UUID since migration 0012.
    const companyId = canonicalId(saved.companyId);
    const demo = await companiesRepository.findById(db, companyId);
    if (saved.organizationApiKey === undefined && demo !== undefined) {
      // Written by an earlier release, whose one key was the organization's: keep it as such and hand out a
      // company key, which is what the specification's operations carry.
      const key = await createApiKey(db, clock, demo.organization_id, {
        name: 'sandbox',
        scope: 'company',
        companyId,
        plan: 'terminal',
      });
      info = { ...saved, companyId, baseUrl, apiKey: key.key, organizationApiKey: saved.apiKey };
    } else {
      info = { ...saved, companyId, organizationApiKey: saved.organizationApiKey ?? saved.apiKey, baseUrl };
    }
    // The port may differ from the last start; keep the file pointing at where the API is now.
    if (JSON.stringify(saved) !== JSON.stringify(info)) writeSandboxJson(dataDir, info);
    // Installs from before operators existed: the demo company gets its two, unless it has any already.
    if (demo !== undefined) await ensureDemoOperators(db, clock, companyId);
    // Installs from before the IE check: the demo company's first IE had wrong check digits for SP, so its
    // sales would now be refused (rejection 209); it gets the valid one. A store's own company is never changed.
    if (demo !== undefined && demo.cnpj === DEMO_CNPJ && demo.ie === OLD_DEMO_IE) {
      await companiesRepository.update(db, companyId, {
        ie: DEMO_COMPANY.ie,
        updated_at: clock.now().toISOString(),
      });
    }
    return { created: false, sandbox: info, lines: [`Sandbox: ${file} (company ${info.companyId})`] };
  }

  // No organization in a database that exists. Every first start writes the master key and migrates before it
  // gets here, so those prove nothing; what the bootstrap itself wrote (or what came after it) does.
  const traces = installTraces(dataDir, { keys: false });
  if (traces.length > 0) throw new EmptiedInstallError(dataDir, 'no organizations', traces);

  const certPassword = randomBytes(9).toString('base64url');
  // Valid around the service's clock, which the upload checks it against (a test's clock may be days back),
  // and around the real one, which TLS peers check it against.
  const clockNow = clock.now().getTime();
  const realNow = Date.now();
  const pfx = generateTestA1({
    cnpj: DEMO_CNPJ,
    legalName: DEMO_COMPANY.xNome,
    password: certPassword,
    notBefore: new Date(Math.min(clockNow, realNow) - DAY_MS),
    notAfter: new Date(Math.max(clockNow, realNow) + 365 * DAY_MS),
  });
  const cscToken = randomBytes(18).toString('hex').toUpperCase();
  const certFile = path.join(dataDir, 'sandbox-certificate.pfx');
  // One transaction: a start interrupted half-way leaves an empty database and bootstraps again next time.
  const { org, company, cert, key, orgKey, info } = await inTransaction(db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    const org = await createOrganization(trx, clock, 'Balcão Demo');
    const company = await createCompany(
      txDeps,
      org.id,
      companyCreateSchema.parse({ ...DEMO_COMPANY, csc: { id: '1', token: cscToken } }),
    );
    const companyRow = await companiesRepository.findById(trx, company.id);
    if (companyRow === undefined) throw new Error('demo company vanished during bootstrap');
    const cert = await uploadCertificate(txDeps, companyRow, pfx, certPassword);
    const key = await createApiKey(trx, clock, org.id, {
      name: 'sandbox',
      scope: 'company',
      companyId: company.id,
      plan: 'terminal',
    });
    const orgKey = await createApiKey(trx, clock, org.id, {
      name: 'sandbox organization',
      scope: 'organization',
      plan: 'terminal',
    });
    const info: SandboxInfo = {
      baseUrl,
      apiKey: key.key,
      companyId: company.id,
      organizationApiKey: orgKey.key,
    };
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(certFile, pfx, { mode: 0o600 });
    writeSandboxJson(dataDir, info);
    return { org, company, cert, key, orgKey, info };
  });
  // After the transaction (the slow PIN hashes must not hold it); a start interrupted before this adds them
  // on the next one, as for an earlier install.
  await ensureDemoOperators(db, clock, company.id);
  const json = sandboxFile(dataDir);
  return {
    created: true,
    sandbox: info,
    lines: [
      'Sandbox bootstrap (first start):',
      `  organization  ${org.id}`,
      `  company       ${company.id}  CNPJ ${DEMO_CNPJ}  ${DEMO_COMPANY.xNome}  ambiente homologacao, authority sandbox`,
      `  certificate   ${certFile}  password ${certPassword}  valid until ${cert.notAfter}`,
      `  NFC-e CSC     id 000001  token ${cscToken}`,
      `  series        NF-e 1, NFC-e 1`,
      `  API key       ${key.key}  (company scope)`,
      `  org API key   ${orgKey.key}  (organization scope: creates companies and keys)`,
      '  operators     1 Gerente Demo (gerente, PIN 4826), 2 Caixa Demo (caixa, PIN 3971)',
      // Later starts print none of these: say once where each one can be found again.
      'These secrets are printed this once. Where they are kept:',
      `  API keys      ${json} (mode 0600)`,
      `  certificate   ${certFile} (mode 0600); its password and the CSC token only sealed in ` +
        // Server mode keeps them in its PostgreSQL database, not in the data dir's file.
        `${isPostgres(db) ? 'the PostgreSQL store (BALCAO_DATABASE_URL)' : path.join(dataDir, DATABASE_FILE)}, ` +
        'under the master key, never again in clear',
    ],
  };
}

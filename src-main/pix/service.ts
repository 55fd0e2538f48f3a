// Dynamic PIX for a company: its PSP settings (secrets sealed), charges created with the PSP and followed by
// polling and by the PSP's webhook, and the embedded sandbox PSP's clients kept registered.
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { DomainError, conflict, notFound, validationError } from '../errors.ts';
import { CertificateError, generateTestA1, readPkcs12 } from '../fiscal/certificate.ts';
import type { SandboxPsp } from '../sandbox-psp/server.ts';
import { companiesRepository } from '../companies/repository.ts';
import { PspClient, PspError, type PspConnection, type PspCob } from './client.ts';
import { pixRepository, type PixChargeRow, type PixConfigRow } from './repository.ts';
import { dynamicBrCode } from '../../src-shared/pix/br-code.ts';
import { cents, formatCents } from '../../src-shared/money.ts';
import type {
  PixChargeCreate,
  PixChargeView,
  PixConfigInput,
  PixConnectionTest,
  PixConfigView,
} from '../../src-shared/contracts/pix.ts';

/** What exists only while the service runs: the embedded sandbox PSP and the service's own address. */
export interface PixRuntime {
  sandboxPsp: SandboxPsp | null;
  /** http://host:port of this service, for the webhook URL the PSP is given. */
  serviceUrl: string | null;
}

export interface PixDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  logger?: Logger;
  runtime: PixRuntime;
}

const DEFAULT_EXPIRACAO = 300;
const TXID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 random letters and digits: inside API Pix's 26–35 and unguessable. */
export function newTxid(): string {
  return [...randomBytes(32)].map((b) => TXID_ALPHABET[b % TXID_ALPHABET.length]).join('');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function pixConfigView(row: PixConfigRow): PixConfigView {
  return {
    provedor: row.provedor,
    chave: row.chave,
    base_url: row.base_url,
    token_url: row.token_url,
    client_id: row.client_id,
    tem_client_secret: row.client_secret_enc !== null,
    tem_certificado: row.certificado_enc !== null,
    cnpj_psp: row.cnpj_psp,
    expiracao_segundos: row.expiracao_segundos,
    updated_at: row.updated_at,
  };
}

export function pixChargeView(row: PixChargeRow): PixChargeView {
  return {
    txid: row.txid,
    status: row.status,
    valor: Number(row.valor),
    pixCopiaECola: row.pix_copia_e_cola,
    qrcode_png_url: `/v1/pix/charges/${row.txid}/qrcode.png`,
    criada_em: row.created_at,
    expira_em: row.expires_at,
    pago_em: row.paid_at,
    end_to_end_id: row.end_to_end_id,
    document_id: row.document_id,
  };
}

/** A PSP failure as the API answers it: the cashier reads what went wrong, the integrator the status. */
export function pspFailure(error: unknown): never {
  if (!(error instanceof PspError)) throw error;
  switch (error.kind) {
    case 'timeout':
      throw new DomainError('psp_unavailable', `O PSP não respondeu a tempo: ${error.message}`, [], {
        reason: 'timeout',
      });
    case 'refused':
      throw new DomainError('psp_rejection', `O PSP recusou a cobrança: ${error.message}`, [
        { field: 'psp', error: error.message },
      ]);
    case 'auth':
      throw new DomainError(
        'psp_unavailable',
        `O PSP recusou as credenciais da loja (client_id, client_secret ou certificado): ${error.message}`,
        [{ field: 'pix', error: 'check the PSP settings with PUT /v1/companies/:companyId/pix' }],
      );
    case 'not_found':
      throw new DomainError('psp_unavailable', `O PSP não conhece a cobrança: ${error.message}`);
    default:
      throw new DomainError('psp_unavailable', `O PSP não está disponível: ${error.message}`);
  }
}

function sandboxOrThrow(runtime: PixRuntime): SandboxPsp {
  if (runtime.sandboxPsp === null) {
    throw conflict('The embedded sandbox PSP does not run in this service.', [
      { field: 'provedor', error: 'sandbox is not available here: configure a real PSP (psp)' },
    ]);
  }
  return runtime.sandboxPsp;
}

/** How to reach the company's PSP now (the sandbox's address changes with every start). */
export function connectionOf(deps: PixDeps, config: PixConfigRow): PspConnection {
  const open = (sealed: string | null) => (sealed === null ? null : deps.secrets.openText(sealed));
  const pfx = config.certificado_enc === null ? null : deps.secrets.open(config.certificado_enc);
  if (config.provedor === 'sandbox') {
    const psp = sandboxOrThrow(deps.runtime);
    return {
      baseUrl: psp.apiUrl,
      tokenUrl: psp.tokenUrl,
      clientId: config.client_id ?? '',
      clientSecret: open(config.client_secret_enc) ?? '',
      pfx,
      passphrase: open(config.senha_certificado_enc),
      caPem: psp.caPem,
    };
  }
  return {
    baseUrl: config.base_url ?? '',
    tokenUrl: config.token_url ?? '',
    clientId: config.client_id ?? '',
    clientSecret: open(config.client_secret_enc) ?? '',
    pfx,
    passphrase: open(config.senha_certificado_enc),
    caPem: null,
  };
}

async function withClient<T>(
  deps: PixDeps,
  config: PixConfigRow,
  run: (c: PspClient) => Promise<T>,
): Promise<T> {
  const client = new PspClient(connectionOf(deps, config), deps.clock);
  try {
    return await run(client);
  } finally {
    client.close();
  }
}

/** Registers a sandbox company's client with the embedded PSP and points its webhook at this service. */
async function registerWithSandbox(deps: PixDeps, config: PixConfigRow): Promise<void> {
  const psp = deps.runtime.sandboxPsp;
  if (psp === null || config.provedor !== 'sandbox' || config.certificado_enc === null) return;
  const company = await companiesRepository.findById(deps.db, config.company_id);
  const password =
    config.senha_certificado_enc === null ? '' : deps.secrets.openText(config.senha_certificado_enc);
  const cert = readPkcs12(deps.secrets.open(config.certificado_enc), password);
  // What the sandbox issued, not what the store typed: a mistyped secret is then refused by the PSP.
  const issued = config.sandbox_secret_enc ?? config.client_secret_enc;
  psp.registerClient({
    clientId: config.client_id ?? '',
    clientSecret: issued === null ? '' : deps.secrets.openText(issued),
    certFingerprint256: new X509Certificate(cert.certificatePem).fingerprint256,
    merchantName: company?.x_fant ?? company?.x_nome ?? 'Balcao',
    merchantCity: company?.x_mun ?? 'Brasil',
  });
  if (deps.runtime.serviceUrl !== null) {
    const url = `${deps.runtime.serviceUrl}/pix-webhook/${deps.secrets.openText(config.webhook_secret_enc)}`;
    await withClient(deps, config, (c) => c.setWebhook(config.chave, url)).catch((error: unknown) => {
      deps.logger?.warn('PIX webhook not registered with the sandbox PSP', { error: String(error) });
    });
  }
}

/** At start: every company on the sandbox PSP is known to it again (its state lives in memory). */
export async function syncSandboxPixClients(deps: PixDeps): Promise<void> {
  for (const config of await pixRepository.sandboxConfigs(deps.db)) await registerWithSandbox(deps, config);
}

export async function getPixConfig(db: Db, companyId: string): Promise<PixConfigView> {
  const row = await pixRepository.config(db, companyId);
  if (row === undefined) throw notFound('PIX configuration');
  return pixConfigView(row);
}

export async function savePixConfig(
  deps: PixDeps,
  companyId: string,
  input: PixConfigInput,
): Promise<PixConfigView> {
  const company = await companiesRepository.findById(deps.db, companyId);
  if (company === undefined) throw notFound('Company');
  const existing = await pixRepository.config(deps.db, companyId);
  const same = existing?.provedor === input.provedor ? existing : undefined;
  const now = deps.clock.now().toISOString();
  const seal = (text: string | undefined, kept: string | null | undefined) =>
    text === undefined ? (kept ?? null) : deps.secrets.seal(text);

  let pfx: Buffer | null =
    input.certificado_pfx === undefined ? null : Buffer.from(input.certificado_pfx, 'base64');
  let password = input.senha_certificado;
  let clientId = input.client_id ?? same?.client_id ?? null;
  let clientSecret = input.client_secret;
  let sandboxSecret: string | null = null;
  if (input.provedor === 'sandbox') {
    sandboxOrThrow(deps.runtime);
    // The sandbox hands out the credentials a bank would: a client id, a secret and a client certificate.
    clientId ??= `balcao-${companyId}`;
    sandboxSecret = same?.sandbox_secret_enc ?? deps.secrets.seal(randomBytes(24).toString('base64url'));
    if (clientSecret === undefined && same?.client_secret_enc == null)
      clientSecret = deps.secrets.openText(sandboxSecret);
    if (pfx === null && same?.certificado_enc == null) {
      password = randomBytes(12).toString('base64url');
      pfx = Buffer.from(generateTestA1({ cnpj: company.cnpj, legalName: company.x_nome, password }));
    }
  } else {
    const missing = [
      ...(input.base_url === undefined ? [{ field: 'base_url', error: 'required for provedor psp' }] : []),
      ...(clientId === null ? [{ field: 'client_id', error: 'required for provedor psp' }] : []),
      ...(clientSecret === undefined && same?.client_secret_enc == null
        ? [{ field: 'client_secret', error: 'required for provedor psp' }]
        : []),
      ...(pfx === null && same?.certificado_enc == null
        ? [{ field: 'certificado_pfx', error: 'the PSP requires a client certificate (mutual TLS)' }]
        : []),
      ...(input.cnpj_psp === undefined && same?.cnpj_psp == null
        ? [{ field: 'cnpj_psp', error: 'required for provedor psp: the NFC-e names who settled the payment' }]
        : []),
    ];
    if (missing.length > 0) throw validationError(missing);
  }
  if (pfx !== null) {
    try {
      readPkcs12(pfx, password ?? '');
    } catch (error) {
      if (!(error instanceof CertificateError)) throw error;
      throw new DomainError(
        'certificate_invalid',
        `The client certificate cannot be used: ${error.message}`,
        [
          {
            field: error.code === 'wrong_password' ? 'senha_certificado' : 'certificado_pfx',
            error: error.message,
          },
        ],
      );
    }
  }
  const baseUrl = input.provedor === 'sandbox' ? null : (input.base_url ?? null);
  const webhookSecret = existing === undefined ? randomBytes(24).toString('base64url') : null;
  const row: PixConfigRow = {
    company_id: companyId,
    provedor: input.provedor,
    chave: input.chave,
    base_url: baseUrl,
    token_url:
      input.provedor === 'sandbox'
        ? null
        : (input.token_url ?? (baseUrl === null ? null : `${new URL(baseUrl).origin}/oauth/token`)),
    client_id: clientId,
    client_secret_enc: seal(clientSecret, same?.client_secret_enc),
    certificado_enc: pfx === null ? (same?.certificado_enc ?? null) : deps.secrets.seal(pfx),
    senha_certificado_enc:
      pfx === null ? (same?.senha_certificado_enc ?? null) : deps.secrets.seal(password ?? ''),
    sandbox_secret_enc: sandboxSecret,
    cnpj_psp:
      input.cnpj_psp ??
      same?.cnpj_psp ??
      (input.provedor === 'sandbox' ? (deps.runtime.sandboxPsp?.cnpj ?? null) : null),
    expiracao_segundos: input.expiracao_segundos ?? same?.expiracao_segundos ?? DEFAULT_EXPIRACAO,
    webhook_secret_hash: existing?.webhook_secret_hash ?? sha256(webhookSecret ?? ''),
    webhook_secret_enc: existing?.webhook_secret_enc ?? deps.secrets.seal(webhookSecret ?? ''),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await pixRepository.saveConfig(deps.db, row);
  await registerWithSandbox(deps, row);
  return pixConfigView(row);
}

/**
 * "Testar conexão": a new OAuth2 token from the PSP with the stored credentials and client certificate (mutual
 * TLS), so a wrong secret, certificate or URL shows now rather than at the first sale. The PSP's refusal
 * answers as a charge's would (pspFailure).
 */
export async function testPixConnection(deps: PixDeps, companyId: string): Promise<PixConnectionTest> {
  const config = await pixRepository.config(deps.db, companyId);
  if (config === undefined) throw notFound('PIX configuration');
  const token = await withClient(deps, config, (c) => c.checkCredentials()).catch((error: unknown) => {
    // The owner reads this beside the button: the PSP's own words, without pointing at the API.
    if (error instanceof PspError && error.kind === 'auth') {
      const reason = error.reason ?? error.message;
      throw new DomainError('psp_unavailable', `O PSP recusou as credenciais da loja: ${reason}`, [
        { field: 'psp', error: reason },
      ]);
    }
    return pspFailure(error);
  });
  return {
    ok: true,
    provedor: config.provedor,
    escopo: token.scope,
    expira_em_segundos: token.expiresIn,
    testado_em: deps.clock.now().toISOString(),
  };
}

/** The store switches dynamic PIX off: recorded, so no later start puts the sandbox PSP back. */
export async function deletePixConfig(db: Db, clock: Clock, companyId: string): Promise<void> {
  if (!(await pixRepository.deleteConfig(db, companyId, clock.now().toISOString())))
    throw notFound('PIX configuration');
}

/** The receiving key the demo company's sandbox PSP is set up with. */
export const DEMO_PIX_KEY = 'pix@balcao-demo.com.br';

/**
 * At start: the demo company (sandbox authority) gets the embedded sandbox PSP when it has no PSP and its
 * owner never switched dynamic PIX off, so a data dir from before dynamic PIX sells with it like a fresh one.
 * True when it was set up now.
 */
export async function ensureDemoSandboxPix(deps: PixDeps, companyId: string): Promise<boolean> {
  if (deps.runtime.sandboxPsp === null) return false;
  const company = await companiesRepository.findById(deps.db, companyId);
  if (company === undefined || company.authority !== 'sandbox') return false;
  if ((await pixRepository.config(deps.db, companyId)) !== undefined) return false;
  if (await pixRepository.wasRemoved(deps.db, companyId)) return false;
  await savePixConfig(deps, companyId, { provedor: 'sandbox', chave: DEMO_PIX_KEY });
  return true;
}

async function configOrThrow(db: Db, companyId: string): Promise<PixConfigRow> {
  const config = await pixRepository.config(db, companyId);
  if (config === undefined) {
    throw conflict('The company has no PSP for dynamic PIX.', [
      { field: 'pix', error: 'configure the PSP with PUT /v1/companies/:companyId/pix' },
    ]);
  }
  return config;
}

export async function createPixCharge(
  deps: PixDeps,
  companyId: string,
  input: PixChargeCreate,
): Promise<PixChargeView> {
  const config = await configOrThrow(deps.db, companyId);
  if (cents(input.valor) <= 0n) throw validationError([{ field: 'valor', error: 'must be more than zero' }]);
  // API Pix writes `valor.original` with exactly two decimals ("12.50").
  const valor = formatCents(cents(input.valor));
  const txid = newTxid();
  const cob = await withClient(deps, config, (c) =>
    c.createCob(txid, {
      valor,
      chave: config.chave,
      expiracao: config.expiracao_segundos,
      ...(input.descricao === undefined ? {} : { solicitacaoPagador: input.descricao }),
    }),
  ).catch(pspFailure);
  const location = cob.location ?? cob.loc?.location ?? '';
  const company = await companiesRepository.findById(deps.db, companyId);
  const now = deps.clock.now().toISOString();
  const row: PixChargeRow = {
    txid,
    company_id: companyId,
    valor,
    descricao: input.descricao ?? null,
    status: cob.status,
    // A PSP that leaves pixCopiaECola out still gave the location: the BR Code is built from it.
    pix_copia_e_cola:
      cob.pixCopiaECola ??
      dynamicBrCode({ location, merchantName: company?.x_nome ?? '', merchantCity: company?.x_mun ?? '' }),
    location,
    expires_at: new Date(Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000).toISOString(),
    paid_at: null,
    end_to_end_id: null,
    valor_pago: null,
    cnpj_psp: config.cnpj_psp,
    document_id: null,
    created_at: now,
    updated_at: now,
  };
  await pixRepository.insertCharge(deps.db, row);
  return pixChargeView(row);
}

/** The PSP's word on a charge, written to its row; a paid charge's payment sums every `pix` entry. */
async function applyCob(deps: PixDeps, row: PixChargeRow, cob: PspCob): Promise<PixChargeRow> {
  const pix = cob.pix ?? [];
  const paid = pix.reduce((sum, p) => sum + cents(p.valor), 0n);
  const changes: Partial<PixChargeRow> = {
    status: cob.status,
    ...(cob.status === 'CONCLUIDA' && pix.length > 0
      ? {
          end_to_end_id: pix[0]?.endToEndId ?? null,
          valor_pago: formatCents(paid),
          paid_at: pix[0]?.horario ?? deps.clock.now().toISOString(),
        }
      : {}),
  };
  const unchanged = Object.entries(changes).every(([k, v]) => row[k as keyof PixChargeRow] === v);
  if (unchanged) return row;
  const updated = { ...row, ...changes, updated_at: deps.clock.now().toISOString() };
  await pixRepository.updateCharge(deps.db, row.txid, { ...changes, updated_at: updated.updated_at });
  return updated;
}

export async function chargeOfCompany(
  db: Db,
  txid: string,
  reachable: (companyId: string) => Promise<boolean>,
) {
  const row = await pixRepository.charge(db, txid);
  if (row === undefined || !(await reachable(row.company_id))) throw notFound('PIX charge');
  return row;
}

/**
 * GET: while ATIVA the PSP is asked again (the cashier polls every second); when the PSP cannot answer the
 * row as last known is returned, so polling never fails on a PSP hiccup.
 */
export async function refreshPixCharge(deps: PixDeps, row: PixChargeRow): Promise<PixChargeRow> {
  if (row.status !== 'ATIVA') return row;
  const config = await pixRepository.config(deps.db, row.company_id);
  if (config === undefined) return row;
  try {
    return await applyCob(deps, row, await withClient(deps, config, (c) => c.getCob(row.txid)));
  } catch (error) {
    if (!(error instanceof PspError)) throw error;
    deps.logger?.warn('PIX charge not refreshed from the PSP', { txid: row.txid, error: error.message });
    return row;
  }
}

export async function cancelPixCharge(deps: PixDeps, row: PixChargeRow): Promise<PixChargeRow> {
  const fresh = await refreshPixCharge(deps, row);
  if (fresh.status === 'CONCLUIDA') {
    throw new DomainError(
      'invalid_state',
      'The charge is already paid (CONCLUIDA) and cannot be cancelled.',
      [{ field: 'status', error: "current state is 'CONCLUIDA'" }],
    );
  }
  if (fresh.status !== 'ATIVA') return fresh;
  const config = await configOrThrow(deps.db, row.company_id);
  const cob = await withClient(deps, config, (c) => c.removeCob(row.txid)).catch(pspFailure);
  return applyCob(deps, fresh, cob);
}

/**
 * The PSP's webhook (`POST /pix-webhook/:secret/pix`): the secret names the company; each txid of that
 * company is then read back from the PSP, so a forged body can move nothing by itself.
 */
export async function receivePixWebhook(
  deps: PixDeps,
  secret: string,
  txids: readonly string[],
): Promise<number> {
  const config = await pixRepository.configByWebhookHash(deps.db, sha256(secret));
  if (config === undefined) throw notFound('Webhook');
  let updated = 0;
  for (const row of await pixRepository.charges(deps.db, txids)) {
    if (row.company_id !== config.company_id) continue;
    const after = await refreshPixCharge(deps, row);
    if (after.status !== row.status) updated += 1;
  }
  return updated;
}

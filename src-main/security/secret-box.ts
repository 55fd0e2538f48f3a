// Encryption at rest for certificates, their passwords and CSC tokens: AES-256-GCM under a master key
// kept beside the database (mode 0600) or given by BALCAO_MASTER_KEY; the desktop shell may wrap it.
import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  private readonly key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be 32 bytes');
    this.key = key;
  }

  /** Returns `v1.<iv>.<tag>.<ciphertext>` in base64url; a fresh IV per call. */
  seal(plain: Uint8Array | string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([
      cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain),
      cipher.final(),
    ]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string): Buffer {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('sealed value has an unknown format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  }

  openText(sealed: string): string {
    return this.open(sealed).toString('utf8');
  }
}

/** Where the desktop app keeps the master key wrapped by the OS keychain (src-main/desktop/master-key.ts). */
export const KEYCHAIN_MASTER_KEY_FILE = 'master.key.keychain';

/** Loads the master key from the environment or the data dir, creating it on first start. */
export function loadMasterKey(dataDir: string, fromEnv: string | undefined): Buffer {
  if (fromEnv !== undefined && fromEnv !== '') {
    const key = Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new Error('BALCAO_MASTER_KEY must be 32 bytes in base64');
    return key;
  }
  const wrapped = path.join(dataDir, KEYCHAIN_MASTER_KEY_FILE);
  // A fresh master.key here would orphan every secret already sealed in this data dir.
  if (fs.existsSync(wrapped)) {
    throw new Error(
      `${wrapped}: this data dir's master key is kept in the OS keychain by the desktop app; open it with the desktop app`,
    );
  }
  const file = path.join(dataDir, 'master.key');
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx' so two processes starting at once cannot overwrite each other's key.
  fs.writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  return key;
}

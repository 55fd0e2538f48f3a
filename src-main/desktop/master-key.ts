// The desktop app keeps the data dir's master key (which seals certificates, their passwords and CSC tokens)
// wrapped by the OS keychain through Electron's safeStorage, and falls back to the plain master.key file.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { KEYCHAIN_MASTER_KEY_FILE, loadMasterKey } from '../security/secret-box.ts';

/** The part of Electron's safeStorage used here (injected, so this module never imports electron). */
export interface Keychain {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export type MasterKeyStorage = 'environment' | 'keychain' | 'file';

export interface DesktopMasterKey {
  key: Buffer;
  storage: MasterKeyStorage;
  /** True when this start moved an existing plain master.key into the keychain. */
  migrated: boolean;
}

/** What the wrapped file holds: the safeStorage ciphertext of the base64 key. */
interface WrappedKeyFile {
  format: 'electron-safeStorage';
  data: string;
}

const PLAIN_FILE = 'master.key';

/**
 * Whether safeStorage really protects anything. On Linux without a secret service it falls back to
 * `basic_text`, a password hard-coded in Chromium: wrapping with it would hide nothing and would tie the key
 * to that fallback, so the plain file (mode 0600) is kept instead.
 */
export function keychainProtects(platform: NodeJS.Platform, linuxBackend: string | null): boolean {
  if (platform !== 'linux') return true;
  return linuxBackend !== null && linuxBackend !== 'basic_text' && linuxBackend !== 'unknown';
}

function decodeKey(base64: string, where: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${where} does not hold a 32-byte key`);
  return key;
}

function unwrap(file: string, keychain: Keychain | null): Buffer {
  if (keychain === null || !keychain.isEncryptionAvailable()) {
    throw new Error(
      `${file}: the master key is kept in the OS keychain, which is not available now ` +
        '(on Linux: is the desktop keyring unlocked?). Certificates and CSC tokens cannot be opened without it.',
    );
  }
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<WrappedKeyFile>;
  if (parsed.format !== 'electron-safeStorage' || typeof parsed.data !== 'string') {
    throw new Error(`${file} has an unknown format`);
  }
  let plain: string;
  try {
    plain = keychain.decryptString(Buffer.from(parsed.data, 'base64'));
  } catch (error) {
    throw new Error(
      `${file}: the OS keychain could not unwrap the master key (${error instanceof Error ? error.message : String(error)}). ` +
        'If the keychain was reset, upload the certificate and the CSC again on a new data dir.',
      { cause: error },
    );
  }
  return decodeKey(plain, file);
}

/** Writes the wrapped key next to the database; `exclusive` refuses to replace a file another start wrote. */
function writeWrapped(file: string, key: Buffer, keychain: Keychain, exclusive: boolean): void {
  const body: WrappedKeyFile = {
    format: 'electron-safeStorage',
    data: keychain.encryptString(key.toString('base64')).toString('base64'),
  };
  const text = `${JSON.stringify(body)}\n`;
  if (exclusive) {
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  } else {
    const tmp = `${file}.tmp`;
    fs.writeFileSync(tmp, text, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
  // Read back through the keychain before anything depends on it: a wrap that cannot be unwrapped is a lost key.
  try {
    if (!unwrap(file, keychain).equals(key))
      throw new Error(`${file}: the keychain returned a different key`);
  } catch (error) {
    fs.rmSync(file, { force: true });
    throw error;
  }
}

/**
 * The master key for the desktop app, in this order: BALCAO_MASTER_KEY; the keychain-wrapped file; an older
 * plain master.key, moved into the keychain when one protects anything (the plain file is deleted only after
 * the wrapped copy was read back); otherwise the plain file as the headless service keeps it.
 */
export function loadDesktopMasterKey(
  dataDir: string,
  fromEnv: string | undefined,
  keychain: Keychain | null,
): DesktopMasterKey {
  if (fromEnv !== undefined && fromEnv !== '') {
    return { key: loadMasterKey(dataDir, fromEnv), storage: 'environment', migrated: false };
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const wrappedFile = path.join(dataDir, KEYCHAIN_MASTER_KEY_FILE);
  const plainFile = path.join(dataDir, PLAIN_FILE);

  if (fs.existsSync(wrappedFile)) {
    const key = unwrap(wrappedFile, keychain);
    // A start stopped between writing the wrapped copy and deleting the plain file leaves both.
    if (fs.existsSync(plainFile)) {
      const plain = decodeKey(fs.readFileSync(plainFile, 'utf8'), plainFile);
      if (!plain.equals(key)) {
        throw new Error(
          `${plainFile} and ${wrappedFile} hold different keys; keep the one that opens the data`,
        );
      }
      fs.rmSync(plainFile);
    }
    return { key, storage: 'keychain', migrated: false };
  }

  const usable = keychain !== null && keychain.isEncryptionAvailable();
  if (fs.existsSync(plainFile)) {
    const key = decodeKey(fs.readFileSync(plainFile, 'utf8'), plainFile);
    if (!usable) return { key, storage: 'file', migrated: false };
    writeWrapped(wrappedFile, key, keychain, false);
    fs.rmSync(plainFile);
    return { key, storage: 'keychain', migrated: true };
  }

  if (!usable) return { key: loadMasterKey(dataDir, undefined), storage: 'file', migrated: false };
  const key = randomBytes(32);
  writeWrapped(wrappedFile, key, keychain, true);
  return { key, storage: 'keychain', migrated: false };
}

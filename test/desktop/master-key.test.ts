// The desktop master key: wrapped by the OS keychain when one protects anything, the plain file otherwise,
// older plain files moved in without losing the key, and never a silently new key for an existing data dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keychainProtects, loadDesktopMasterKey } from '../../src-main/desktop/master-key.ts';
import { KEYCHAIN_MASTER_KEY_FILE, SecretBox, loadMasterKey } from '../../src-main/security/secret-box.ts';
import { TestKeychain } from './test-keychain.ts';

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-desktop-key-'));
const plain = (d: string) => path.join(d, 'master.key');
const wrapped = (d: string) => path.join(d, KEYCHAIN_MASTER_KEY_FILE);

describe('loadDesktopMasterKey', () => {
  it('fresh data dir with a keychain: a new key kept only wrapped, the same key on the next start', () => {
    const d = dir();
    const keychain = new TestKeychain();
    const first = loadDesktopMasterKey(d, undefined, keychain);
    expect(first).toMatchObject({ storage: 'keychain', migrated: false });
    expect(first.key).toHaveLength(32);
    expect(fs.existsSync(plain(d))).toBe(false);
    const text = fs.readFileSync(wrapped(d), 'utf8');
    expect(text).not.toContain(first.key.toString('base64'));
    expect((fs.statSync(wrapped(d)).mode & 0o777).toString(8)).toBe('600');
    const again = loadDesktopMasterKey(d, undefined, keychain);
    expect(again.key.equals(first.key)).toBe(true);
  });

  it('an existing plain master.key moves into the keychain and keeps opening old secrets', () => {
    const d = dir();
    const key = loadMasterKey(d, undefined);
    const sealed = new SecretBox(key).seal('senha do certificado');
    const loaded = loadDesktopMasterKey(d, undefined, new TestKeychain());
    expect(loaded).toMatchObject({ storage: 'keychain', migrated: true });
    expect(new SecretBox(loaded.key).openText(sealed)).toBe('senha do certificado');
    expect(fs.existsSync(plain(d))).toBe(false);
    expect(fs.existsSync(wrapped(d))).toBe(true);
  });

  it('without a usable keychain keeps the plain file exactly as the headless service does', () => {
    const d = dir();
    const keychain = new TestKeychain();
    keychain.available = false;
    const created = loadDesktopMasterKey(d, undefined, keychain);
    expect(created.storage).toBe('file');
    expect(loadMasterKey(d, undefined).equals(created.key)).toBe(true);
    expect(loadDesktopMasterKey(d, undefined, null).key.equals(created.key)).toBe(true);
    expect(fs.existsSync(wrapped(d))).toBe(false);
  });

  it('BALCAO_MASTER_KEY wins and touches no file', () => {
    const d = dir();
    const key = randomBytes(32);
    const loaded = loadDesktopMasterKey(d, key.toString('base64'), new TestKeychain());
    expect(loaded).toMatchObject({ storage: 'environment', migrated: false });
    expect(loaded.key.equals(key)).toBe(true);
    expect(fs.readdirSync(d)).toEqual([]);
  });

  it('a wrapped key with the keychain locked or gone stops the start with a clear message', () => {
    const d = dir();
    const keychain = new TestKeychain();
    loadDesktopMasterKey(d, undefined, keychain);
    keychain.available = false;
    expect(() => loadDesktopMasterKey(d, undefined, keychain)).toThrow(/kept in the OS keychain/);
    expect(() => loadDesktopMasterKey(d, undefined, null)).toThrow(/kept in the OS keychain/);
    // Another keychain (the OS one was reset) cannot unwrap it.
    expect(() => loadDesktopMasterKey(d, undefined, new TestKeychain())).toThrow(/could not unwrap/);
    expect(fs.existsSync(plain(d))).toBe(false);
  });

  it('the headless service refuses a data dir whose key is in the keychain instead of creating a new one', () => {
    const d = dir();
    loadDesktopMasterKey(d, undefined, new TestKeychain());
    expect(() => loadMasterKey(d, undefined)).toThrow(/OS keychain by the desktop app/);
    expect(fs.existsSync(plain(d))).toBe(false);
  });

  it('a start stopped half-way through the move (both files, same key) finishes it', () => {
    const d = dir();
    const keychain = new TestKeychain();
    const key = loadDesktopMasterKey(d, undefined, keychain).key;
    fs.writeFileSync(plain(d), key.toString('base64'), { mode: 0o600 });
    const loaded = loadDesktopMasterKey(d, undefined, keychain);
    expect(loaded.key.equals(key)).toBe(true);
    expect(fs.existsSync(plain(d))).toBe(false);
  });

  it('two different keys in the two files: refuses to guess', () => {
    const d = dir();
    const keychain = new TestKeychain();
    loadDesktopMasterKey(d, undefined, keychain);
    fs.writeFileSync(plain(d), randomBytes(32).toString('base64'), { mode: 0o600 });
    expect(() => loadDesktopMasterKey(d, undefined, keychain)).toThrow(/hold different keys/);
    expect(fs.existsSync(plain(d))).toBe(true);
  });

  it('a keychain that does not give back what it wrapped leaves the plain file in place', () => {
    const d = dir();
    const key = loadMasterKey(d, undefined);
    const keychain = new TestKeychain();
    const broken = {
      isEncryptionAvailable: () => true,
      encryptString: (s: string) => keychain.encryptString(s),
      decryptString: () => randomBytes(32).toString('base64'),
    };
    expect(() => loadDesktopMasterKey(d, undefined, broken)).toThrow(/different key/);
    expect(fs.existsSync(wrapped(d))).toBe(false);
    expect(loadMasterKey(d, undefined).equals(key)).toBe(true);
  });
});

describe('keychainProtects', () => {
  it("refuses Linux's basic_text fallback (a password hard-coded in Chromium) and an unknown backend", () => {
    expect(keychainProtects('linux', 'gnome_libsecret')).toBe(true);
    expect(keychainProtects('linux', 'kwallet6')).toBe(true);
    expect(keychainProtects('linux', 'basic_text')).toBe(false);
    expect(keychainProtects('linux', 'unknown')).toBe(false);
    expect(keychainProtects('linux', null)).toBe(false);
    expect(keychainProtects('win32', null)).toBe(true);
    expect(keychainProtects('darwin', null)).toBe(true);
  });
});

// A stand-in for Electron's safeStorage in tests: real AES-256-GCM under a key held in memory, so a wrapped
// file is unreadable without this instance, and the keychain can be "locked" to test the failure paths.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keychain } from '../../src-main/desktop/master-key.ts';

export class TestKeychain implements Keychain {
  private readonly key = randomBytes(32);
  available = true;
  encryptions = 0;

  isEncryptionAvailable(): boolean {
    return this.available;
  }

  encryptString(plainText: string): Buffer {
    if (!this.available) throw new Error('keychain locked');
    this.encryptions++;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  decryptString(encrypted: Buffer): string {
    if (!this.available) throw new Error('keychain locked');
    const decipher = createDecipheriv('aes-256-gcm', this.key, encrypted.subarray(0, 12));
    decipher.setAuthTag(encrypted.subarray(12, 28));
    return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
  }
}

import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PATTERN = /^wm_[A-Za-z0-9]{40}$/;

/** `wm_` + 40 base62 characters from a CSPRNG (rejection sampling keeps them uniform). */
export function generateKey(): string {
  let out = 'wm_';
  while (out.length < 43) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < 43) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Only this digest is stored; lookups go by digest, so no stored secret is ever compared. */
export const keyDigest = (key: string): Buffer => createHash('sha256').update(key).digest();

export const isWellFormedKey = (key: string): boolean => KEY_PATTERN.test(key);

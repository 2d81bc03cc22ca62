import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));

/** scrypt with N=2^15, r=8, p=1 (OWASP's minimum is N=2^17 with p=1 or 2^15 with more memory passes;
 *  32 MiB and ~60 ms per hash here). Stored as `scrypt$N$r$p$salt$hash` (base64url), so the cost can
 *  rise later without breaking stored hashes. */
const N = 1 << 15,
  R = 8,
  P = 1,
  KEYLEN = 32;
const MAXMEM = 128 * N * R * 2;

export const MIN_PASSWORD_LENGTH = 10;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFC'), salt, KEYLEN, { N, r: R, p: P, maxmem: MAXMEM });
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const opts = { N: Number(n), r: Number(r), p: Number(p), maxmem: 128 * Number(n) * Number(r) * 2 };
  const key = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, opts);
  return timingSafeEqual(key, expected);
}

/** Spent on a sign-in with an unknown e-mail, so timing does not tell which e-mails exist. */
let dummy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword(randomBytes(12).toString('hex'));
  await verifyPassword(password, await dummy);
}

export function passwordProblem(password: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if ([...password].length > 1024) return 'may not be longer than 1024 characters';
  return undefined;
}

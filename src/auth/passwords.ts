import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

// OWASP's recommended scrypt parameters are N=2^17, r=8, p=1 (128 MiB, a few hundred ms);
// N is configurable (PASSWORD_HASH_COST) so that a test suite need not pay it on every sign-up;
// r, p and the key length are fixed (each hash records them), and maxmem leaves room for N=2^20.
const R = 8;
const P = 1;
const KEYLEN = 32;
const maxmem = 256 * 1024 * 1024;

/** Hashes and checks passwords with scrypt; each hash records its parameters, so N can rise later. */
export class PasswordHasher {
  private dummy?: Promise<string>;

  /** @param cost log2 of scrypt's N */
  constructor(private readonly cost: number) {}

  /** Stored as `scrypt$N$r$p$salt$hash` (base64url). */
  async hash(password: string): Promise<string> {
    const N = 2 ** this.cost;
    const salt = randomBytes(16);
    const key = await scrypt(password.normalize('NFKC'), salt, KEYLEN, { N, r: R, p: P, maxmem });
    return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash) return false;
    const expected = Buffer.from(hash, 'base64url');
    const key = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem,
    });
    return timingSafeEqual(key, expected);
  }

  /** Spends the time of a real check when the account does not exist, so timing does not tell. */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(password, await this.dummy);
    return false;
  }
}

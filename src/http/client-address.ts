import { isIP } from 'node:net';

/**
 * One spelling per address: uWS writes an IPv4 client of a dual-stack socket as
 * `0000:0000:0000:0000:0000:ffff:7f00:0001`, a configuration says `127.0.0.1`, IPv6 has many spellings.
 */
export function canonicalAddress(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^(?:(?:0{1,4}:){5}|::)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (mapped) {
    const hi = Number.parseInt(mapped[1], 16),
      lo = Number.parseInt(mapped[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) return dotted[1];
  if (isIP(a) === 6) return new URL(`http://[${a}]/`).hostname.slice(1, -1);
  return a;
}

/** The proxies whose X-Forwarded-* headers are believed (WAYMARK_TRUSTED_PROXIES); anyone else's are
 *  the client's own say, and a client can write anything there. */
export class TrustedProxies {
  private readonly set: ReadonlySet<string>;

  constructor(addresses: readonly string[]) {
    this.set = new Set(addresses.map(canonicalAddress));
  }

  /** The request came from a trusted proxy. */
  trusts(peer: string | undefined): boolean {
    return peer !== undefined && this.set.has(canonicalAddress(peer));
  }

  /** The host the client asked for: a trusted proxy's X-Forwarded-Host, else Host. */
  host(peer: string | undefined, headers: Record<string, string>): string | undefined {
    const forwarded = headers['x-forwarded-host'];
    return forwarded && this.trusts(peer) ? forwarded.split(',')[0].trim() : headers.host;
  }

  /** The client's address: behind trusted proxies, the nearest address in X-Forwarded-For that is not
   *  one of them (what comes before it the client wrote itself); else the connection's peer. */
  client(peer: string | undefined, headers: Record<string, string>): string {
    const own = peer ? canonicalAddress(peer) : 'unknown';
    if (!this.trusts(peer)) return own;
    const hops = (headers['x-forwarded-for'] ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) if (!this.trusts(hops[i])) return canonicalAddress(hops[i]);
    return own;
  }
}

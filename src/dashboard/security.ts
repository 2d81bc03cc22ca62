/** Headers every dashboard response carries. No inline script anywhere: the app is one bundled file. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export const COOKIE = 'wm_session';

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `secure` when the request came over TLS (a trusted proxy in front says so) or the operator asks for it. */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${COOKIE}=${token}; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** A state-changing request from another site: its Origin (browsers send one on every POST, PUT,
 *  DELETE) names another host than the one it was sent to (`host`: Host, or a trusted proxy's
 *  X-Forwarded-Host; anyone else's would let a page name its own site there). */
export function crossOrigin(headers: Record<string, string>, host: string | undefined): boolean {
  const origin = headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host !== host;
  } catch {
    // Not a URL (`null` from a sandboxed frame or a privacy setting): not this site either.
    return true;
  }
}

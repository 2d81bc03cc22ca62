/** Calls to the dashboard's server: JSON, the session cookie, and the CSRF token on every change. */

export interface FieldErrors {
  [field: string]: string[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldErrors = {},
  ) {
    super(message);
  }
}

let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

/** Called when the server says the session is gone (401): the app shows the sign-in page. */
let onSignedOut: () => void = () => {};
export const whenSignedOut = (f: () => void) => {
  onSignedOut = f;
};

export async function call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`/dashboard/api${path}`, { method, headers, body: payload, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text };
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/session') onSignedOut();
    throw new ApiError(res.status, data?.message ?? `Request failed (${res.status}).`, data?.errors ?? {});
  }
  return data as T;
}

/** Query string from an object, leaving out empty values. */
export function qs(params: Record<string, string | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

export const PERMISSION_GROUPS: Array<{ label: string; permissions: string[] }> = [
  { label: 'POIs', permissions: ['read-pois', 'create-pois', 'update-pois', 'delete-pois'] },
  { label: 'Attributes', permissions: ['read-attributes', 'create-attributes', 'update-attributes', 'delete-attributes'] },
  { label: 'Categories', permissions: ['read-categories', 'create-categories', 'update-categories', 'delete-categories'] },
  { label: 'Routing', permissions: ['plan-routes'] },
  { label: 'Messaging', permissions: ['read-conversations', 'write-conversations'] },
];

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

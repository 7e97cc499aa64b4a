/** The console server's JSON API as the page uses it: the CSRF token on every mutation. */

/** One offending place: a path in the document and, for text, its line and column. */
export interface ProblemDetail {
  path: string;
  message: string;
  expected?: string;
  found?: string;
  line?: number;
  column?: number;
}

/** A failed request, as the server explained it. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ProblemDetail[];

  constructor(status: number, code: string, message: string, details: ProblemDetail[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

let csrf = '';

/** Remembers the session's CSRF token (from /api/session). */
export function setCsrf(token: string): void {
  csrf = token;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' ? { 'x-tollgate-csrf': csrf } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const error = (
      parsed as
        { error?: { code?: string; message?: string; details?: ProblemDetail[] } } | undefined
    )?.error;
    if (res.status === 401 && !path.startsWith('/api/session')) {
      window.location.assign(
        `/auth/login?returnTo=${encodeURIComponent(location.pathname + location.search)}`,
      );
    }
    throw new ApiError(
      res.status,
      error?.code ?? 'HTTP_' + res.status,
      error?.message ?? res.statusText,
      error?.details ?? [],
    );
  }
  return parsed as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
};

/** `?a=1&b=2` from the non-empty entries. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

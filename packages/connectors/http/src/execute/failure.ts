/**
 * An API's error status as a Tollgate error: the category tells the agent what to do. The
 * upstream's own message is passed on only for rejections a person or the agent must act on,
 * cut short, on one line and screened (a text that looks like a credential or like
 * instructions to a model is withheld, saying why); a server error's body never is.
 */
import { TollgateError, UpstreamError, findInjection, secretReason } from '@tollgate/core';
import type { ErrorCode, ErrorDetail } from '@tollgate/core';

const MAX_MESSAGE = 300;
const MAX_PROBLEMS = 10;
/** A field name (`requester.email`) or a JSON pointer (`/requester/email`) an API names. */
const FIELD = /^(?:[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*|(?:\/[\w-]+)+)$/;

/** A short, single-line message an error body carries (`message`, `error`, `errors[0].message`, …). */
export function upstreamMessage(body: unknown): string | undefined {
  const pick = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return pick(value[0]);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    for (const key of ['message', 'detail', 'title', 'error_description', 'error', 'errors'])
      if (record[key] !== undefined) {
        const found = pick(record[key]);
        if (found !== undefined) return found;
      }
    return undefined;
  };
  return screened(pick(body));
}

/** One line, capped, and withheld when it reads as a credential or as instructions. */
function screened(raw: string | undefined): string | undefined {
  const text = raw?.replace(/\p{Cc}+/gu, ' ').trim();
  if (text === undefined || text === '') return undefined;
  const secret = secretReason(text);
  if (secret !== undefined) return `(withheld: it looks like a credential, ${secret})`;
  const injection = findInjection(text);
  if (injection !== undefined) return `(withheld: it reads as instructions, ${injection})`;
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/**
 * The problems a business rejection lists, as details: RFC 9457 problem details (`errors` or
 * `invalid-params` entries with a `name`/`field`/`pointer`) and the `errors[].extensions.field`
 * form many APIs use. Each message is screened like the top one; at most ten are kept.
 */
export function upstreamProblems(body: unknown): ErrorDetail[] {
  if (typeof body !== 'object' || body === null) return [];
  const record = body as Record<string, unknown>;
  const list = [record['errors'], record['invalid-params'], record['invalid_params']].find(
    Array.isArray,
  ) as unknown[] | undefined;
  if (list === undefined) return [];
  const details: ErrorDetail[] = [];
  for (const item of list.slice(0, MAX_PROBLEMS)) {
    if (typeof item !== 'object' || item === null) continue;
    const entry = item as Record<string, unknown>;
    const extensions = (entry['extensions'] ?? {}) as Record<string, unknown>;
    const field = [entry['pointer'], entry['field'], entry['name'], extensions['field']].find(
      (v): v is string => typeof v === 'string' && v.length <= 100 && FIELD.test(v),
    );
    const message = screened(
      [entry['reason'], entry['detail'], entry['message'], entry['title']].find(
        (v): v is string => typeof v === 'string',
      ),
    );
    if (message === undefined) continue;
    const path =
      field === undefined ? '' : field.startsWith('/') ? field : `/${field.replaceAll('.', '/')}`;
    details.push({ path, message });
  }
  return details;
}

/** The error for a non-success status, deciding retryability (reads) and outcome (writes). */
export function statusError(
  status: number,
  body: unknown,
  resource: string,
  idempotent: boolean,
  attempts: number,
): UpstreamError & { retryable: boolean } {
  const said = upstreamMessage(body);
  const quoted = said === undefined ? '' : ` The API said: "${said}"`;
  const make = (code: ErrorCode, message: string, retryable = false, details?: ErrorDetail[]) =>
    Object.assign(
      new UpstreamError(code, message, {
        attempts,
        upstreamStatus: status,
        ...(details === undefined ? {} : { details }),
      }),
      { retryable },
    );
  if (status === 401 || status === 403)
    return make('POLICY_DENIED', `The API of ${resource} refused the request (${status}).`);
  if (status === 404 || status === 410)
    return make('NOT_FOUND', `The API of ${resource} found nothing there (${status}).${quoted}`);
  if (status === 409 || status === 422)
    return make(
      'UPSTREAM_BUSINESS_REJECTION',
      `The API of ${resource} refused the request on its own business rules (${status}); a person must decide what to do, retrying will not change the answer.${quoted}`,
      false,
      upstreamProblems(body),
    );
  if (status >= 400 && status < 500 && status !== 408 && status !== 429)
    return make(
      'UPSTREAM_REJECTED',
      `The API of ${resource} rejected the arguments (${status}).${quoted}`,
    );
  if (!idempotent && status !== 429 && status !== 503)
    return make(
      'WRITE_OUTCOME_UNKNOWN',
      `The API of ${resource} answered ${status} to a change; it may or may not have been applied. Check before repeating it.`,
    );
  if (status === 408 || status === 504)
    return make('UPSTREAM_TIMEOUT', `The API of ${resource} timed out (${status}).`, true);
  if (status === 429 || status >= 500)
    return make(
      'UPSTREAM_UNAVAILABLE',
      `The API of ${resource} is overloaded or unavailable (${status}).`,
      true,
    );
  return make('UPSTREAM_BAD_RESPONSE', `The API of ${resource} answered with status ${status}.`);
}

export { TollgateError };

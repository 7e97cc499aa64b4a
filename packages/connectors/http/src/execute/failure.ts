/**
 * An API's error status as a Tollgate error: the category tells the agent what to do. The
 * upstream's own message is passed on only for rejections a person or the agent must act on,
 * cut short and without control characters; a server error's body never is.
 */
import { TollgateError, UpstreamError } from '@tollgate/core';
import type { ErrorCode } from '@tollgate/core';

const MAX_MESSAGE = 300;

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
  const text = pick(body)
    ?.replace(/\p{Cc}+/gu, ' ')
    .trim();
  if (text === undefined || text === '') return undefined;
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
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
  const make = (code: ErrorCode, message: string, retryable = false) =>
    Object.assign(new UpstreamError(code, message, { attempts, upstreamStatus: status }), {
      retryable,
    });
  if (status === 401 || status === 403)
    return make('POLICY_DENIED', `The API of ${resource} refused the request (${status}).`);
  if (status === 404 || status === 410)
    return make('NOT_FOUND', `The API of ${resource} found nothing there (${status}).${quoted}`);
  if (status === 409 || status === 422)
    return make(
      'UPSTREAM_REJECTED',
      `The API of ${resource} rejected the request as it stands (${status}); a person may need to look at it.${quoted}`,
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

/**
 * Waiting for a parked (pending_approval) or accepted call to finish: the `call.completed`
 * event is the fast path; polling `call_result` covers events missed across a reconnect and
 * fetches the data an ok event does not carry.
 */
import type { CompletionEvent, CompletionFeed, CompletionSubscription } from './completions.js';
import { isRetryable, toolCallError } from './errors.js';
import type { FinalOutcome, ReadResult, WaitOptions } from './result.js';

/** Listens for the final completion event of one call, from before the call is sent. */
export class CallWatch {
  readonly callId: string;
  readonly final: Promise<CompletionEvent>;
  /** The final event, once it came. */
  event: CompletionEvent | undefined;
  #subscription: CompletionSubscription | undefined;

  constructor(feed: CompletionFeed, callId: string) {
    this.callId = callId;
    let settle: (event: CompletionEvent) => void = () => undefined;
    this.final = new Promise((resolve) => (settle = resolve));
    this.#subscription = feed.listen((event) => {
      if (event.callId !== callId || (event.status !== 'ok' && event.status !== 'error')) return;
      this.event = event;
      this.close();
      settle(event);
    });
  }

  /** Stops listening (the final event, if it came, stays available). */
  close(): void {
    this.#subscription?.close();
    this.#subscription = undefined;
  }
}

export interface AwaitCompletionInput {
  watch: CallWatch;
  kind: 'pending_approval' | 'accepted';
  /** Asks `call_result` once; resolves with what the executor knows now. */
  poll: () => Promise<ReadResult>;
  options: Required<Pick<WaitOptions, 'timeoutMs' | 'pollIntervalMs'>> &
    Pick<WaitOptions, 'signal'>;
}

/** Resolves with the call's final outcome; rejects with a typed error on timeout or abort. */
export async function awaitCompletion(input: AwaitCompletionInput): Promise<FinalOutcome> {
  const { watch, kind, poll, options } = input;
  const deadline = Date.now() + options.timeoutMs;
  let polledSinceEvent = false;
  for (;;) {
    if (options.signal?.aborted) {
      throw toolCallError({
        code: 'UPSTREAM_TIMEOUT',
        message: `stopped waiting for call ${watch.callId}`,
      });
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw watch.event?.status === 'ok'
        ? toolCallError({
            code: 'UPSTREAM_UNAVAILABLE',
            message: `call ${watch.callId} completed but its result could not be fetched; wait again later`,
          })
        : stillRunning(kind, watch.callId, options.timeoutMs);
    }
    // Until the event comes, wake on it or at the poll interval; once it came, poll at once
    // and then at the interval.
    if (watch.event === undefined) {
      await raceWith(watch.final, Math.min(options.pollIntervalMs, remaining), options.signal);
    } else if (polledSinceEvent) {
      await raceWith(NEVER, Math.min(options.pollIntervalMs, remaining), options.signal);
    }
    const event = watch.event;
    if (event?.status === 'error' && event.error) {
      return { status: 'error', callId: watch.callId, error: event.error, meta: event.meta };
    }
    polledSinceEvent = event !== undefined;
    const polled = await pollQuietly(poll);
    if (polled !== undefined && (polled.status === 'ok' || polled.status === 'error'))
      return polled;
  }
}

const NEVER = new Promise<never>(() => undefined);

async function pollQuietly(poll: () => Promise<ReadResult>): Promise<ReadResult | undefined> {
  try {
    return await poll();
  } catch (err) {
    if (isRetryable(err)) return undefined;
    throw err;
  }
}

function stillRunning(kind: AwaitCompletionInput['kind'], callId: string, timeoutMs: number) {
  return kind === 'pending_approval'
    ? toolCallError({
        code: 'APPROVAL_REQUIRED',
        message: `call ${callId} still awaits approval after ${timeoutMs} ms`,
      })
    : toolCallError({
        code: 'UPSTREAM_TIMEOUT',
        message: `call ${callId} is still running after ${timeoutMs} ms; wait again later`,
      });
}

/** Waits for `promise`, `ms` or an abort, whichever comes first. */
async function raceWith(
  promise: Promise<unknown>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Where the real servers started by deploy/local listen. Tests read the same variables as
 * the scripts, so a changed port is changed in one place.
 */
export const infra = {
  natsUrl:
    process.env.TOLLGATE_NATS_URL ?? `nats://127.0.0.1:${process.env.TOLLGATE_NATS_PORT ?? 4222}`,
  mongoUrl:
    process.env.TOLLGATE_MONGO_URL ??
    `mongodb://127.0.0.1:${process.env.TOLLGATE_MONGO_PORT ?? 27017}`,
  esUrl: process.env.TOLLGATE_ES_URL ?? `http://127.0.0.1:${process.env.TOLLGATE_ES_PORT ?? 9200}`,
};

/** A name no other test run uses, for indices, databases, buckets and durables. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Polls `check` until it returns a value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5_000,
  stepMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms${lastErr ? `: ${(lastErr as Error).message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

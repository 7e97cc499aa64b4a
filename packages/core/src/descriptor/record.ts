/** Reading untrusted, possibly malformed input without trusting its shape. */

/** The value as a plain key/value object, or undefined when it is anything else. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The string items of a value that should be a list of strings. */
export function stringItems(value: unknown): Array<{ index: number; item: string }> {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown, index) =>
    typeof item === 'string' ? [{ index, item }] : [],
  );
}

/** A JSON value, pretty-printed. */
export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre tabIndex={0} aria-label={label ?? 'JSON'}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** `2026-12-01T20:01:02Z` as a short local time. */
export function time(value: string | undefined | null): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toLocaleString();
}

/** Drops an enum's type prefix: `CALL_STATUS_OK` → `ok`. */
export function enumName(value: string | undefined, prefix: string): string {
  return (value ?? '').replace(prefix, '').toLowerCase();
}

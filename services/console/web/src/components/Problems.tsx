import { ApiError } from '../api.js';
import type { ProblemDetail } from '../api.js';

/** Where a problem is, in words. */
export function where(p: ProblemDetail): string {
  const at = p.line !== undefined ? `line ${p.line}, column ${p.column ?? 1}` : '';
  return [at, p.path].filter(Boolean).join(' · ');
}

/** A failed request: its message and every offending place (clickable when it has a line). */
export function ErrorBox({
  error,
  onGoto,
}: {
  error: unknown;
  onGoto?: (p: ProblemDetail) => void;
}) {
  if (error === null || error === undefined) return null;
  const apiError = error instanceof ApiError ? error : undefined;
  return (
    <div role="alert" className="panel error">
      <strong>{apiError ? `${apiError.code}: ` : ''}</strong>
      {error instanceof Error ? error.message : String(error)}
      {apiError && apiError.details.length > 0 && (
        <ProblemList problems={apiError.details} {...(onGoto ? { onGoto } : {})} />
      )}
    </div>
  );
}

export function ProblemList({
  problems,
  onGoto,
}: {
  problems: ProblemDetail[];
  onGoto?: (p: ProblemDetail) => void;
}) {
  return (
    <ul className="problems" aria-label="Problems">
      {problems.map((p, i) => (
        <li key={i}>
          {onGoto && p.line !== undefined ? (
            <button type="button" onClick={() => onGoto(p)}>
              {where(p)}
            </button>
          ) : (
            <span>{where(p)}</span>
          )}
          {': '}
          {p.message}
        </li>
      ))}
    </ul>
  );
}

import { useEffect, useState } from 'react';
import { api, ApiError } from '../api.js';
import type { ProblemDetail } from '../api.js';

/** Checks `text` on the server as the person types (debounced); the problems with line/column. */
export function useCheck(path: string, text: string): ProblemDetail[] {
  const [problems, setProblems] = useState<ProblemDetail[]>([]);
  useEffect(() => {
    if (text.trim() === '') {
      setProblems([]);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      api
        .post<{ problems: ProblemDetail[] }>(path, { yaml: text })
        .then((r) => live && setProblems(r.problems))
        .catch((err: unknown) => live && setProblems(err instanceof ApiError ? err.details : []));
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [path, text]);
  return problems;
}

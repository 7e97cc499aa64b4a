import { useImperativeHandle, useRef } from 'react';
import type { Ref } from 'react';
import type { ProblemDetail } from '../api.js';
import { ProblemList } from './Problems.js';

/** Moves the caret to a problem's line and column. */
export interface EditorHandle {
  goto(line: number, column: number): void;
}

/**
 * A plain-text editor for descriptors: line numbers, the lines with problems marked, and the
 * problems listed below it, each one moving the caret to its line and column.
 */
export function TextEditor({
  label,
  value,
  onChange,
  problems = [],
  rows = 22,
  readOnly = false,
  handle,
}: {
  label: string;
  value: string;
  onChange?: (text: string) => void;
  problems?: ProblemDetail[];
  rows?: number;
  readOnly?: boolean;
  handle?: Ref<EditorHandle>;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLPreElement>(null);
  const goto = (line: number, column: number) => {
    const el = area.current;
    if (!el) return;
    const lines = el.value.split('\n');
    let offset = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) offset += (lines[i]?.length ?? 0) + 1;
    offset += Math.max(0, column - 1);
    el.focus();
    el.setSelectionRange(offset, offset);
    const lineHeight = el.scrollHeight / Math.max(1, lines.length);
    el.scrollTop = Math.max(0, (line - 3) * lineHeight);
  };
  useImperativeHandle(handle, () => ({ goto }));
  const bad = new Set(problems.map((p) => p.line).filter((l): l is number => l !== undefined));
  const count = Math.max(value.split('\n').length, rows);
  return (
    <div>
      <div className="editor">
        <pre className="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: count }, (_, i) => (
            <div key={i} className={bad.has(i + 1) ? 'bad' : undefined}>
              {i + 1}
            </div>
          ))}
        </pre>
        <textarea
          ref={area}
          aria-label={label}
          value={value}
          rows={rows}
          spellCheck={false}
          readOnly={readOnly}
          aria-invalid={problems.length > 0}
          onChange={(e) => onChange?.(e.target.value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
        />
      </div>
      {problems.length > 0 && (
        <ProblemList problems={problems} onGoto={(p) => goto(p.line ?? 1, p.column ?? 1)} />
      )}
    </div>
  );
}

/**
 * Descriptors as people edit them: YAML (or JSON) text in, the document out, and every problem
 * a service reports at a path located back at its line and column in that text.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, stringify } from 'yaml';
import type { Document, Node } from 'yaml';
import { parsePath } from '@tollgate/core';
import { parseResourceDescriptors } from '@tollgate/kinds';
import type { JsonObject } from '@bufbuild/protobuf';
import { badRequest } from '../http/problem.js';
import type { ProblemDetail } from '../http/problem.js';

/** One descriptor read from text, and where each of its paths is in that text. */
export interface DescriptorText {
  descriptor: JsonObject;
  /** 1-based line and column of `path` (the nearest enclosing node that exists). */
  locate(path: string): { line: number; column: number } | undefined;
  /** Where line `line`/column `column` of the block scalar at `path` is in the whole text. */
  locateInside(
    path: string,
    line: number,
    column: number,
  ): { line: number; column: number } | undefined;
}

const MAX_TEXT = 512 * 1024;

/**
 * Reads exactly one descriptor of `kind` from `text`: YAML syntax errors (with line and
 * column), more than one document, or another kind are refused before any service is asked.
 */
export function readDescriptorText(text: unknown, kind: string): DescriptorText {
  if (typeof text !== 'string' || text.trim() === '') {
    throw badRequest(`Paste a ${kind} descriptor (YAML or JSON).`, [
      { path: 'yaml', message: 'empty', expected: `a ${kind} descriptor` },
    ]);
  }
  if (text.length > MAX_TEXT) {
    throw badRequest(`The text exceeds ${MAX_TEXT} characters.`, [
      { path: 'yaml', message: 'too long' },
    ]);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
  });
  const errors = [...doc.errors, ...doc.warnings];
  if (errors.length > 0) {
    throw badRequest(
      'The text is not valid YAML.',
      errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        const message =
          e.code === 'MULTIPLE_DOCS'
            ? 'a second document starts here: paste one descriptor at a time'
            : (e.message.split('\n')[0] ?? e.message);
        return { path: '', message, line, column: col };
      }),
    );
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('A descriptor is a mapping (apiVersion, kind, metadata, spec).', [
      { path: '', message: 'not a mapping', line: 1, column: 1 },
    ]);
  }
  const found = (value as Record<string, unknown>).kind;
  if (found !== kind) {
    const at = locateIn(doc, lines, 'kind');
    throw badRequest(`This page applies ${kind} descriptors.`, [
      {
        path: 'kind',
        message: `expected "${kind}", found ${JSON.stringify(found ?? null)}`,
        ...(at ?? {}),
      },
    ]);
  }
  return {
    descriptor: value as JsonObject,
    locate: (path) => locateIn(doc, lines, path),
    locateInside: (path, line, column) => locateInside(doc, lines, text, path, line, column),
  };
}

/** Every problem core's validation finds in the text, each with its line and column. */
export function checkDescriptorText(text: string, kind: string): ProblemDetail[] {
  readDescriptorText(text, kind);
  const parsed = parseResourceDescriptors(text);
  return parsed.documents.flatMap((d) =>
    d.result.ok
      ? []
      : d.result.problems.map((p) => ({
          path: p.path,
          message: p.message,
          ...(p.expected !== undefined ? { expected: p.expected } : {}),
          ...(p.found !== undefined ? { found: p.found } : {}),
          ...(p.line !== undefined ? { line: p.line, column: p.column ?? 1 } : {}),
        })),
  );
}

/** Adds line and column to each detail whose path is in the text. */
export function locateDetails(
  text: DescriptorText | undefined,
  details: ProblemDetail[],
): ProblemDetail[] {
  if (text === undefined) return details;
  return details.map((d) => {
    const inCedar = /^line (\d+), column (\d+): /.exec(d.message);
    const at =
      inCedar !== null
        ? text.locateInside(d.path, Number(inCedar[1]), Number(inCedar[2]))
        : text.locate(d.path);
    return at === undefined || d.line !== undefined ? d : { ...d, ...at };
  });
}

/** A descriptor as YAML, for editing. */
export function descriptorYaml(descriptor: unknown): string {
  return stringify(descriptor, { lineWidth: 0 });
}

function nodeAt(doc: Document, path: string): Node | undefined {
  let node: unknown = doc.contents;
  let last: Node | undefined = doc.contents ?? undefined;
  for (const segment of parsePath(path)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === segment);
      if (pair === undefined) break;
      node = pair.value;
      last = (pair.value as Node | null) ?? (pair.key as Node);
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      if (node === undefined) break;
      last = node as Node;
    } else break;
  }
  return last;
}

function locateIn(
  doc: Document,
  lines: LineCounter,
  path: string,
): { line: number; column: number } | undefined {
  const node = nodeAt(doc, path);
  if (node?.range === undefined || node.range === null) return undefined;
  const { line, col } = lines.linePos(node.range[0]);
  return { line, column: col };
}

function locateInside(
  doc: Document,
  lines: LineCounter,
  text: string,
  path: string,
  line: number,
  column: number,
): { line: number; column: number } | undefined {
  const node = nodeAt(doc, path);
  if (!isScalar(node) || node.range === undefined || node.range === null) return undefined;
  const start = lines.linePos(node.range[0]);
  const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
  const first = block ? start.line + 1 : start.line;
  const sourceLine = text.split('\n')[first + line - 2] ?? '';
  const indent = block ? (/^ */.exec(sourceLine)?.[0].length ?? 0) : start.col - 1;
  return { line: first + line - 1, column: indent + column };
}

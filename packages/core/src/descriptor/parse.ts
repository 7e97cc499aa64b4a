/**
 * Reading descriptors from text: one or more YAML documents separated by `---`, or JSON (a
 * YAML subset). Syntax errors, duplicate keys and unresolved tags are problems with a line and
 * column; every other problem is located in the source too.
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Document, Node, YAMLError } from 'yaml';
import type { DescriptorProblem, ValidationResult } from './problems.js';
import { validateDescriptor } from './validate.js';
import type { ResourceKinds } from './validate.js';
import { parsePath } from './path.js';

/** One document of a parsed text; `index` counts documents from 0 in source order. */
export interface ParsedDescriptorDocument {
  index: number;
  /** 1-based line where the document's content starts. */
  line: number;
  result: ValidationResult;
}

/** Every document in the text, validated; empty documents (a trailing `---`) are skipped. */
export interface ParsedDescriptors {
  documents: ParsedDescriptorDocument[];
}

/** Most aliases one document may expand, a guard against exponential alias bombs. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses and validates every descriptor in `text` (Resources with the kinds in `kinds`).
 * `source` (a file name) is copied onto each problem so callers can print
 * `orders.yaml:12:7: spec.access.maxLimit: …`.
 */
export function parseDescriptors(
  text: string,
  kinds: ResourceKinds,
  source?: string,
): ParsedDescriptors {
  const lines = new LineCounter();
  const parsed = parseAllDocuments(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
    version: '1.2',
  });
  const documents: ParsedDescriptorDocument[] = [];
  parsed.forEach((doc, index) => {
    const yamlErrors = [...doc.errors, ...doc.warnings];
    if (yamlErrors.length === 0 && isEmpty(doc)) return;
    const line = lines.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
    const result =
      yamlErrors.length > 0
        ? { ok: false as const, problems: yamlErrors.map((e) => syntaxProblem(e, lines)) }
        : validateDocument(doc, lines, kinds);
    if (!result.ok && source !== undefined) {
      for (const p of result.problems) p.source = source;
    }
    documents.push({ index, line, result });
  });
  return { documents };
}

/** No content at all (a stray `---` or only comments), as opposed to an explicit `null`. */
function isEmpty(doc: Document.Parsed): boolean {
  const contents = doc.contents;
  return (
    contents === null ||
    (isScalar(contents) && contents.value === null && contents.range[0] === contents.range[1])
  );
}

function syntaxProblem(error: YAMLError, lines: LineCounter): DescriptorProblem {
  const { line, col } = lines.linePos(error.pos[0]);
  const message = error.message.split('\n')[0] ?? error.message;
  return { path: '', message: `invalid YAML: ${message}`, line, column: col };
}

function validateDocument(
  doc: Document.Parsed,
  lines: LineCounter,
  kinds: ResourceKinds,
): ValidationResult {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const { line, col } = lines.linePos(doc.range[0]);
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problems: [{ path: '', message: `invalid YAML: ${message}`, line, column: col }],
    };
  }
  const result = validateDescriptor(value, kinds);
  if (result.ok) return result;
  for (const p of result.problems) {
    const { line, col } = lines.linePos(locate(doc, p.path));
    p.line = line;
    p.column = col;
  }
  return result;
}

/**
 * Offset of the deepest node on `path` that exists: a key's own position when the key is
 * there, else its nearest ancestor's (for a missing key, the object that lacks it).
 */
function locate(doc: Document.Parsed, path: string): number {
  let node: unknown = doc.contents;
  let offset = doc.contents?.range[0] ?? doc.range[0];
  for (const segment of parsePath(path)) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (pair === undefined) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
      node = node.items[segment];
      offset = (node as Node).range?.[0] ?? offset;
    } else break;
  }
  return offset;
}

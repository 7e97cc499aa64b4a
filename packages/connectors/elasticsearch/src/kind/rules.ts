/**
 * Rules of an Elasticsearch resource beyond its schema and the table family's: the endpoint's
 * form, date formats only on dates, and dotted paths under an object, a nested field or (for a
 * multi-field such as `title.raw`) a text or keyword field.
 */
import {
  asRecord,
  checkEndpoint,
  joinPath,
  mismatch,
  problem,
  tableFieldRules,
} from '@tollgate/core';
import type { DescriptorProblem } from '@tollgate/core';
import { elasticsearchModel, isFieldType } from './model.js';

const FIELDS_PATH = 'spec.schema.fields';

/** Parents a dotted field may have: objects, nested fields, and fields carrying multi-fields. */
const PARENT_TYPES: ReadonlySet<string> = new Set(['object', 'nested', 'text', 'keyword']);

export function elasticsearchRules(descriptor: unknown): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  const fields = asRecord(asRecord(spec?.schema)?.fields) ?? {};
  const endpoint = asRecord(spec?.connection)?.endpoint;
  const problems: Array<DescriptorProblem | undefined> = [
    typeof endpoint === 'string' ? checkEndpoint('spec.connection.endpoint', endpoint) : undefined,
    ...tableFieldRules(descriptor, elasticsearchModel),
  ];
  for (const [name, raw] of Object.entries(fields)) {
    const field = asRecord(raw);
    const type = field?.type;
    if (field === undefined || typeof type !== 'string' || !isFieldType(type)) continue;
    const at = joinPath(FIELDS_PATH, name);
    if (field.format !== undefined && type !== 'date') {
      problems.push(
        problem(
          joinPath(at, 'format'),
          `not allowed on a ${type} field (format is for date fields)`,
          {
            expected: 'format is for date fields',
            found: `a ${type} field`,
          },
        ),
      );
    }
    problems.push(...parentProblems(name, at, fields));
  }
  return problems.filter((p) => p !== undefined);
}

/**
 * A dotted path's declared ancestors must be able to hold it: an object or nested field holds
 * subfields, a text or keyword field holds multi-fields (`title.raw`), and a multi-field holds
 * nothing further.
 */
function parentProblems(
  name: string,
  at: string,
  fields: Record<string, unknown>,
): DescriptorProblem[] {
  const segments = name.split('.');
  const problems: DescriptorProblem[] = [];
  for (let depth = 1; depth < segments.length; depth++) {
    const prefix = segments.slice(0, depth).join('.');
    const parentType = asRecord(fields[prefix])?.type;
    if (typeof parentType !== 'string') continue;
    const multiField = parentType === 'text' || parentType === 'keyword';
    const directChild = depth === segments.length - 1;
    if (!PARENT_TYPES.has(parentType) || (multiField && !directChild)) {
      problems.push(
        mismatch(
          at,
          `parent field ${JSON.stringify(prefix)} of type object or nested (or text/keyword for a multi-field directly under it)`,
          `a ${parentType} parent`,
        ),
      );
    }
  }
  return problems;
}

/**
 * Rules of a Resource beyond its JSON Schema: connection formats, field names, capabilities
 * that must fit the field type, and access entries that must name declared fields and roles.
 * Written against possibly malformed input, so they run alongside the structural check.
 */
import type { FieldType } from './types.js';
import type { DescriptorProblem } from './problems.js';
import { mismatch, problem, renderFound } from './problems.js';
import { checkCredentialRef, checkEndpoint, fieldNameProblem } from './formats.js';
import { joinPath } from './path.js';
import { asRecord, stringItems } from './record.js';

const NUMERIC: ReadonlySet<string> = new Set<FieldType>([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'unsigned_long',
]);
const KNOWN: ReadonlySet<string> = new Set<FieldType>([
  ...(NUMERIC as ReadonlySet<FieldType>),
  'keyword',
  'text',
  'date',
  'boolean',
  'ip',
  'object',
  'nested',
  'geo_point',
]);
const isNumeric = (type: string): boolean => NUMERIC.has(type);
const isScalar = (type: string): boolean =>
  isNumeric(type) || ['keyword', 'date', 'boolean', 'ip'].includes(type);
const SCALAR_TYPES = 'keyword, numeric, date, boolean and ip fields';

/** Which field types a capability fits, and what to say when it does not. */
interface CapabilityRule {
  fits: (type: string) => boolean;
  hint: (type: string) => string;
}

const CAPABILITIES: Record<string, CapabilityRule> = {
  filterable: {
    fits: isScalar,
    hint: (type) =>
      type === 'text' ? 'use searchable for text fields' : `filterable is for ${SCALAR_TYPES}`,
  },
  sortable: { fits: isScalar, hint: () => `sortable is for ${SCALAR_TYPES}` },
  aggregatable: { fits: isScalar, hint: () => `aggregatable is for ${SCALAR_TYPES}` },
  range: {
    fits: (type) => isNumeric(type) || type === 'date',
    hint: () => 'range is for numeric and date fields',
  },
  searchable: { fits: (type) => type === 'text', hint: () => 'searchable is for text fields' },
};

const FIELDS_PATH = 'spec.schema.fields';

/** Every rule violation in a Resource descriptor. */
export function resourceRules(descriptor: unknown): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  const fields = asRecord(asRecord(spec?.schema)?.fields) ?? {};
  return [
    ...connectionRules(asRecord(spec?.connection)),
    ...Object.entries(fields).flatMap(([name, field]) => fieldRules(name, field, fields)),
    ...accessRules(asRecord(spec?.access), fields),
  ];
}

function connectionRules(connection: Record<string, unknown> | undefined): DescriptorProblem[] {
  const problems: Array<DescriptorProblem | undefined> = [];
  if (typeof connection?.endpoint === 'string') {
    problems.push(checkEndpoint('spec.connection.endpoint', connection.endpoint));
  }
  if (typeof connection?.credentialRef === 'string') {
    problems.push(checkCredentialRef('spec.connection.credentialRef', connection.credentialRef));
  }
  return problems.filter((p) => p !== undefined);
}

function fieldRules(
  name: string,
  raw: unknown,
  fields: Record<string, unknown>,
): DescriptorProblem[] {
  const at = joinPath(FIELDS_PATH, name);
  const problems: DescriptorProblem[] = [];
  const nameProblem = fieldNameProblem(name);
  if (nameProblem !== undefined) {
    problems.push(
      problem(at, `invalid field name: ${nameProblem}`, {
        expected: 'field name such as amount or customer.email',
        found: renderFound(name),
      }),
    );
  }
  const field = asRecord(raw);
  const type = field?.type;
  if (field === undefined || typeof type !== 'string' || !KNOWN.has(type)) return problems;
  for (const [capability, rule] of Object.entries(CAPABILITIES)) {
    if (field[capability] === true && !rule.fits(type)) {
      problems.push(notAllowed(joinPath(at, capability), type, rule.hint(type)));
    }
  }
  if (field.format !== undefined && type !== 'date') {
    problems.push(notAllowed(joinPath(at, 'format'), type, 'format is for date fields'));
  }
  const parent = name
    .split('.')
    .slice(0, -1)
    .map((_, i, all) => all.slice(0, i + 1).join('.'));
  for (const prefix of parent) {
    const parentType = asRecord(fields[prefix])?.type;
    if (typeof parentType === 'string' && parentType !== 'object' && parentType !== 'nested') {
      problems.push(
        mismatch(
          at,
          `parent field ${JSON.stringify(prefix)} of type object or nested`,
          `a ${parentType} parent`,
        ),
      );
    }
  }
  return problems;
}

function notAllowed(path: string, type: string, hint: string): DescriptorProblem {
  return problem(path, `not allowed on a ${type} field (${hint})`, {
    expected: hint,
    found: `a ${type} field`,
  });
}

function accessRules(
  access: Record<string, unknown> | undefined,
  fields: Record<string, unknown>,
): DescriptorProblem[] {
  if (access === undefined) return [];
  const declared = Object.keys(fields);
  const allowedRoles = new Set(stringItems(access.allowedRoles).map(({ item }) => item));
  const problems: DescriptorProblem[] = [];
  for (const [key, roles] of Object.entries(asRecord(access.fieldRoles) ?? {})) {
    const at = joinPath('spec.access.fieldRoles', key);
    if (!Object.hasOwn(fields, key)) problems.push(undeclaredField(at, key, declared));
    for (const { index, item } of stringItems(roles)) {
      if (!allowedRoles.has(item)) {
        problems.push(
          mismatch(
            joinPath(at, index),
            'a role listed in spec.access.allowedRoles',
            `role ${renderFound(item)}`,
          ),
        );
      }
    }
  }
  for (const key of Object.keys(asRecord(access.redact) ?? {})) {
    if (!Object.hasOwn(fields, key)) {
      problems.push(undeclaredField(joinPath('spec.access.redact', key), key, declared));
    }
  }
  const rowField = asRecord(access.rowFilter)?.field;
  if (typeof rowField === 'string') {
    const type = asRecord(fields[rowField])?.type;
    if (!Object.hasOwn(fields, rowField)) {
      problems.push(
        mismatch(
          'spec.access.rowFilter.field',
          'a declared keyword field',
          `undeclared field ${renderFound(rowField)}`,
        ),
      );
    } else if (type !== 'keyword') {
      problems.push(
        mismatch(
          'spec.access.rowFilter.field',
          'a declared keyword field',
          `a ${String(type)} field`,
        ),
      );
    }
  }
  return problems;
}

const MAX_LISTED = 12;

function undeclaredField(path: string, key: string, declared: string[]): DescriptorProblem {
  const listed =
    declared.length > MAX_LISTED
      ? `${declared.slice(0, MAX_LISTED).join(', ')}, …`
      : declared.join(', ');
  return problem(path, `names no declared field (declared: ${listed || 'none'})`, {
    expected: 'a field declared in spec.schema.fields',
    found: `field ${renderFound(key)}`,
  });
}

/**
 * Rules every Resource follows beyond its JSON Schema, whatever its kind: field names, the
 * credential reference's form, and access entries that must name declared fields and roles.
 * Written against possibly malformed input, so they run alongside the structural check; each
 * kind adds its own rules (`ResourceKind.specRules`).
 */
import type { DescriptorProblem } from './problems.js';
import { mismatch, problem, renderFound } from './problems.js';
import { checkCredentialRef, fieldNameProblem } from './formats.js';
import { joinPath } from './path.js';
import { asRecord, stringItems } from './record.js';

const FIELDS_PATH = 'spec.schema.fields';

/** Every kind-independent rule violation in a Resource descriptor. */
export function resourceRules(descriptor: unknown): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  const fields = asRecord(asRecord(spec?.schema)?.fields) ?? {};
  const ref = asRecord(spec?.connection)?.credentialRef;
  return [
    ...(typeof ref === 'string'
      ? [checkCredentialRef('spec.connection.credentialRef', ref)].filter((p) => p !== undefined)
      : []),
    ...Object.keys(fields).flatMap(fieldNameRules),
    ...accessRules(asRecord(spec?.access), fields),
  ];
}

function fieldNameRules(name: string): DescriptorProblem[] {
  const nameProblem = fieldNameProblem(name);
  if (nameProblem === undefined) return [];
  return [
    problem(joinPath(FIELDS_PATH, name), `invalid field name: ${nameProblem}`, {
      expected: 'field name such as amount or customer.email',
      found: renderFound(name),
    }),
  ];
}

function accessRules(
  access: Record<string, unknown> | undefined,
  fields: Record<string, unknown>,
): DescriptorProblem[] {
  if (access === undefined) return [];
  const declared = Object.keys(fields);
  const allowedRoles = new Set(stringItems(access.allowedRoles).map(({ item }) => item));
  const problems: DescriptorProblem[] = [];
  const checkRoles = (at: string, roles: unknown) => {
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
  };
  for (const [key, roles] of Object.entries(asRecord(access.fieldRoles) ?? {})) {
    const at = joinPath('spec.access.fieldRoles', key);
    if (!Object.hasOwn(fields, key)) problems.push(undeclaredField(at, key, declared));
    checkRoles(at, roles);
  }
  for (const [key, rule] of Object.entries(asRecord(access.redact) ?? {})) {
    const at = joinPath('spec.access.redact', key);
    if (!Object.hasOwn(fields, key)) problems.push(undeclaredField(at, key, declared));
    checkRoles(joinPath(at, 'exceptRoles'), asRecord(rule)?.exceptRoles);
  }
  const rowField = asRecord(access.rowFilter)?.field;
  if (typeof rowField === 'string' && !Object.hasOwn(fields, rowField)) {
    problems.push(
      mismatch(
        'spec.access.rowFilter.field',
        'a declared field of exact string values',
        `undeclared field ${renderFound(rowField)}`,
      ),
    );
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

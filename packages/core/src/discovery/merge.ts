import type { FieldSpec } from '../descriptor/types.js';
import {
  CAPABILITIES,
  suggestedCapabilities,
  supportedCapabilities,
  typeFamily,
  unsupportedReason,
} from './capabilities.js';
import type { CapabilitySet } from './capabilities.js';
import type {
  DiscoveredField,
  DiscoveredSchema,
  FieldConflict,
  MergeResult,
  SchemaIssue,
} from './types.js';

/**
 * Merges the declared schema with the discovered one. Discovery wins on types (and date
 * formats); the declaration wins on capabilities and descriptions, except that a capability the
 * mapping cannot support is removed with a warning. Declared fields missing from the index are
 * kept as declared with a warning; a declared field whose type conflicts across indices or
 * whose type family changed is an error. Undeclared discovered fields enter `fields` with every
 * capability false and `proposed` with suggested capabilities: nothing is exposed implicitly.
 */
export function mergeSchema(
  declared: Record<string, FieldSpec>,
  discovered: DiscoveredSchema,
): MergeResult {
  const found = new Map(discovered.fields.map((field) => [field.path, field]));
  const conflicts = new Map(discovered.conflicts.map((conflict) => [conflict.path, conflict]));
  const issues: SchemaIssue[] = discovered.warnings.map((warning) => ({
    severity: 'warning',
    code: warning.code,
    ...(warning.field === undefined ? {} : { field: warning.field }),
    message: warning.message,
  }));
  // Maps, not objects: a path such as `__proto__` must stay an ordinary key.
  const fields = new Map<string, FieldSpec>();
  const proposed = new Map<string, FieldSpec>();

  for (const name of Object.keys(declared).sort()) {
    const spec = Object.getOwnPropertyDescriptor(declared, name)?.value as FieldSpec;
    const conflict = conflicts.get(name);
    const field = found.get(name);
    if (conflict !== undefined) {
      issues.push(conflictIssue(name, conflict));
      fields.set(name, withCapabilities(spec, declaredCapabilities(spec)));
    } else if (field === undefined) {
      issues.push({
        severity: 'warning',
        code: 'missing_in_index',
        field: name,
        message: `Declared field "${name}" is not in the index mapping (yet); it is kept as declared.`,
      });
      fields.set(name, withCapabilities(spec, declaredCapabilities(spec)));
    } else {
      fields.set(name, mergeField(name, spec, field, issues));
    }
  }

  for (const field of discovered.fields) {
    if (Object.hasOwn(declared, field.path)) continue;
    const base = discoveredSpec(field);
    fields.set(field.path, withCapabilities(base, suggestedNone()));
    proposed.set(field.path, withCapabilities(base, suggestedCapabilities(field)));
  }

  return {
    fields: sortKeys(fields),
    proposed: sortKeys(proposed),
    issues,
    ok: issues.every((issue) => issue.severity !== 'error'),
  };
}

function mergeField(
  name: string,
  spec: FieldSpec,
  field: DiscoveredField,
  issues: SchemaIssue[],
): FieldSpec {
  if (field.type !== spec.type) {
    const compatible = typeFamily(field.type) === typeFamily(spec.type);
    issues.push({
      severity: compatible ? 'warning' : 'error',
      code: 'type_mismatch',
      field: name,
      message:
        `Field "${name}" is declared as ${spec.type} but the index maps it as ${field.nativeType}; ` +
        `using ${field.type}.`,
    });
  }
  const supported = supportedCapabilities(field);
  const wanted = declaredCapabilities(spec);
  const granted = { ...wanted };
  for (const capability of CAPABILITIES) {
    if (wanted[capability] && !supported[capability]) {
      granted[capability] = false;
      issues.push({
        severity: 'warning',
        code: 'capability_unsupported',
        field: name,
        message: `Field "${name}" cannot be ${capability} because ${unsupportedReason(field, capability)}; the capability is removed.`,
      });
    }
  }
  const base = discoveredSpec(field);
  return withCapabilities(
    spec.description === undefined ? base : { ...base, description: spec.description },
    granted,
  );
}

function conflictIssue(name: string, conflict: FieldConflict): SchemaIssue {
  const types = conflict.types.map((entry) => `${entry.index}: ${entry.type}`).join(', ');
  return {
    severity: 'error',
    code: 'type_conflict',
    field: name,
    message: `Declared field "${name}" has different types across the target's indices (${types}).`,
  };
}

function discoveredSpec(field: DiscoveredField): FieldSpec {
  return field.format === undefined
    ? { type: field.type }
    : { type: field.type, format: field.format };
}

function declaredCapabilities(spec: FieldSpec): CapabilitySet {
  const caps = suggestedNone();
  for (const capability of CAPABILITIES) caps[capability] = spec[capability] === true;
  return caps;
}

function suggestedNone(): CapabilitySet {
  return {
    filterable: false,
    returnable: false,
    sortable: false,
    range: false,
    searchable: false,
    aggregatable: false,
  };
}

function withCapabilities(spec: FieldSpec, caps: CapabilitySet): FieldSpec {
  const out: FieldSpec = { type: spec.type };
  if (spec.description !== undefined) out.description = spec.description;
  if (spec.format !== undefined) out.format = spec.format;
  return { ...out, ...caps };
}

function sortKeys<T>(entries: Map<string, T>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

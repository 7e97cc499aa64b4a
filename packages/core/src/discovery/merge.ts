import type { FieldSpec } from '../descriptor/types.js';
import { CAPABILITIES, declaredCapabilities, noCapabilities } from './capabilities.js';
import type { CapabilitySet } from './capabilities.js';
import type {
  DiscoveredField,
  DiscoveredSchema,
  FieldConflict,
  MergeResult,
  SchemaIssue,
} from './types.js';

/**
 * Merges the declared schema with the discovered one, for every kind alike. Discovery wins on
 * types and the attributes it reports (formats, enum values, …); the declaration wins on
 * capabilities and descriptions, except that a capability the data system cannot support is
 * removed with a warning. Declared fields missing from the source are kept as declared with a
 * warning; a declared field whose type conflicts across sources or whose type family changed
 * is an error. Undeclared discovered fields enter `fields` with every capability false and
 * `proposed` with suggested capabilities: nothing is exposed implicitly.
 */
export function mergeSchema(
  declared: Record<string, FieldSpec>,
  discovered: DiscoveredSchema,
  familyOf: (type: string) => string = (type) => type,
): MergeResult {
  const found = new Map(discovered.fields.map((field) => [field.path, field]));
  const conflicts = new Map(discovered.conflicts.map((conflict) => [conflict.path, conflict]));
  const noun = discovered.sourceNoun ?? { one: 'source', many: 'sources' };
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
      issues.push(conflictIssue(name, conflict, noun.many));
      fields.set(name, withCapabilities(spec, declaredCapabilities(spec)));
    } else if (field === undefined) {
      issues.push({
        severity: 'warning',
        code: 'missing_in_source',
        field: name,
        message: `Declared field "${name}" is not in the ${noun.one} ${discovered.target} (yet); it is kept as declared.`,
      });
      fields.set(name, withCapabilities(spec, declaredCapabilities(spec)));
    } else {
      fields.set(name, mergeField(name, spec, field, familyOf, noun.one, issues));
    }
  }

  for (const field of discovered.fields) {
    if (Object.hasOwn(declared, field.path)) continue;
    const base = discoveredSpec(field);
    fields.set(field.path, withCapabilities(base, noCapabilities()));
    proposed.set(field.path, withCapabilities(base, field.suggested));
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
  familyOf: (type: string) => string,
  source: string,
  issues: SchemaIssue[],
): FieldSpec {
  if (field.type !== spec.type) {
    const compatible = familyOf(spec.type) === field.family;
    issues.push({
      severity: compatible ? 'warning' : 'error',
      code: 'type_mismatch',
      field: name,
      message:
        `Field "${name}" is declared as ${spec.type} but the ${source} has it as ${field.nativeType}; ` +
        `using ${field.type}.`,
    });
  }
  const wanted = declaredCapabilities(spec);
  const granted = { ...wanted };
  for (const capability of CAPABILITIES) {
    if (wanted[capability] && !field.supported[capability]) {
      granted[capability] = false;
      const reason =
        field.unsupportedReasons?.[capability] ?? `${field.type} fields do not support it`;
      issues.push({
        severity: 'warning',
        code: 'capability_unsupported',
        field: name,
        message: `Field "${name}" cannot be ${capability} because ${reason}; the capability is removed.`,
      });
    }
  }
  const base = discoveredSpec(field);
  return withCapabilities(
    spec.description === undefined ? base : { ...base, description: spec.description },
    granted,
  );
}

function conflictIssue(name: string, conflict: FieldConflict, sources: string): SchemaIssue {
  const types = conflict.types.map((entry) => `${entry.source}: ${entry.type}`).join(', ');
  return {
    severity: 'error',
    code: 'type_conflict',
    field: name,
    message: `Declared field "${name}" has different types across the target's ${sources} (${types}).`,
  };
}

/** The field spec discovery defines: its type and the attributes it is authoritative for. */
function discoveredSpec(field: DiscoveredField): FieldSpec {
  const spec: FieldSpec = { type: field.type };
  for (const [key, value] of Object.entries(field.attributes ?? {})) {
    if (value !== undefined) (spec as unknown as Record<string, unknown>)[key] = value;
  }
  return spec;
}

function withCapabilities(spec: FieldSpec, caps: CapabilitySet): FieldSpec {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (!(CAPABILITIES as readonly string[]).includes(key)) out[key] = value;
  }
  return { ...(out as unknown as FieldSpec), ...caps };
}

function sortKeys<T>(entries: Map<string, T>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

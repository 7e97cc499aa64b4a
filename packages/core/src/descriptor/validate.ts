/**
 * Descriptor validation by steps: read `apiVersion` and `kind`, then (for a Resource)
 * `spec.type`, then check the rest with the strict schema and rules of what was named. Secret
 * detection runs over the whole input whatever its kind. Every problem is reported at once;
 * nothing is half accepted.
 */
import type { KindRegistry } from '../kind/registry.js';
import type { ResourceKind } from '../kind/kind.js';
import { API_VERSION } from './types.js';
import type { Descriptor, DescriptorKind } from './types.js';
import type { DescriptorProblem, ValidationResult } from './problems.js';
import { mismatch, problem, renderFound } from './problems.js';
import { checkShape } from './shape.js';
import { resourceRules } from './rules-resource.js';
import { agentRules, policyRules } from './rules-policy.js';
import { findSecrets } from './secrets.js';
import type { SecretFinding } from './secrets.js';
import { joinPath } from './path.js';
import { asRecord } from './record.js';

const KINDS: readonly DescriptorKind[] = ['Resource', 'Agent', 'Policy'];

/** What validation needs of the kinds a process knows: look one up by `spec.type`. */
export type ResourceKinds = Pick<KindRegistry, 'find' | 'types'>;

/**
 * Validates one descriptor (already parsed from YAML or JSON). A Resource is read with the
 * schema and rules of the registered kind its `spec.type` names.
 */
export function validateDescriptor(input: unknown, kinds: ResourceKinds): ValidationResult {
  const envelope = asRecord(input);
  if (envelope === undefined) {
    const expected = 'object with apiVersion, kind, metadata and spec';
    return { ok: false, problems: [mismatch('', expected, renderFound(input))] };
  }
  const problems = [...envelopeProblems(envelope)];
  const kind = envelope.kind;
  if (kind === 'Agent' || kind === 'Policy') {
    const rules = kind === 'Agent' ? agentRules : policyRules;
    problems.push(...checkShape(kind, input), ...rules(input), ...labelRules(envelope));
  } else if (kind === 'Resource') {
    const resourceKind = resourceKindOf(envelope, kinds, problems);
    if (resourceKind !== undefined) {
      problems.push(
        ...checkShape(resourceKind, input),
        ...resourceRules(input),
        ...resourceKind.specRules(input),
        ...labelRules(envelope),
      );
    }
  }
  problems.push(...findSecrets(input).map(secretProblem));
  const unique = dedupe(problems);
  if (unique.length > 0) return { ok: false, problems: unique };
  return { ok: true, descriptor: structuredClone(input) as Descriptor };
}

/** The registered kind `spec.type` names; otherwise a problem at `spec.type` (or `spec`). */
function resourceKindOf(
  envelope: Record<string, unknown>,
  kinds: ResourceKinds,
  problems: DescriptorProblem[],
): ResourceKind | undefined {
  const types = `one of ${kinds.types().join(', ')}`;
  const spec = asRecord(envelope.spec);
  if (spec === undefined) {
    problems.push(
      envelope.spec === undefined
        ? missing('spec', `object with type (${types})`)
        : mismatch('spec', `object with type (${types})`, renderFound(envelope.spec)),
    );
    return undefined;
  }
  if (spec.type === undefined) {
    problems.push(missing('spec.type', types));
    return undefined;
  }
  const kind = typeof spec.type === 'string' ? kinds.find(spec.type) : undefined;
  if (kind === undefined) problems.push(mismatch('spec.type', types, renderFound(spec.type)));
  return kind;
}

function isKind(kind: unknown): kind is DescriptorKind {
  return typeof kind === 'string' && (KINDS as string[]).includes(kind);
}

function envelopeProblems(envelope: Record<string, unknown>): DescriptorProblem[] {
  const problems: DescriptorProblem[] = [];
  const apiVersion = JSON.stringify(API_VERSION);
  if (envelope.apiVersion === undefined) problems.push(missing('apiVersion', apiVersion));
  else if (envelope.apiVersion !== API_VERSION) {
    problems.push(mismatch('apiVersion', apiVersion, renderFound(envelope.apiVersion)));
  }
  const kinds = `one of ${KINDS.join(', ')}`;
  if (envelope.kind === undefined) problems.push(missing('kind', kinds));
  else if (!isKind(envelope.kind))
    problems.push(mismatch('kind', kinds, renderFound(envelope.kind)));
  return problems;
}

function missing(path: string, expected: string): DescriptorProblem {
  return problem(path, `required key missing (expected ${expected})`, {
    expected,
    found: 'nothing',
  });
}

/** Label values are single lines; the schema bounds their length. */
function labelRules(envelope: Record<string, unknown>): DescriptorProblem[] {
  const labels = asRecord(asRecord(envelope.metadata)?.labels) ?? {};
  return Object.entries(labels)
    .filter(([, value]) => typeof value === 'string' && hasControlCharacter(value))
    .map(([key]) =>
      mismatch(
        joinPath('metadata.labels', key),
        'one line without control characters',
        'a value with control characters',
      ),
    );
}

function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

function secretProblem({ path, reason }: SecretFinding): DescriptorProblem {
  return problem(
    path,
    `looks like a secret (${reason}); put secrets in a vault and reference them with credentialRef`,
    {
      expected: 'a credentialRef (env://, file:// or vault://), never a literal secret',
      found: `a literal secret (${reason})`,
    },
  );
}

function dedupe(problems: DescriptorProblem[]): DescriptorProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

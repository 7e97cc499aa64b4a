/**
 * Between gRPC messages and the domain: enums both ways (an unknown enum value in a request is
 * INVALID_ARGUMENT), records to messages, and request content to domain content.
 */
import { fromJson, toJson } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ValueSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Value } from '@bufbuild/protobuf/wkt';
import {
  CandidateKind,
  CandidateStatus,
  PreferenceSource,
  PreferenceStatus,
  RecallKind,
  RevisionStatus,
  SessionOutcome,
  SessionStatus,
  SkillFailureAction,
} from '@tollgate/contracts/memory/v1';
import type {
  CandidateSchema,
  PreferenceSchema,
  SavedQueryParameter as SavedQueryParameterMessage,
  SavedQuerySchema,
  SessionSchema,
  SkillParameter as SkillParameterMessage,
  SkillSchema,
  SkillStep as SkillStepMessage,
} from '@tollgate/contracts/memory/v1';
import type { CapabilityView } from './capabilities/capability-book.js';
import type { RecallItemKind } from './recall.js';
import type { SessionSnapshot } from './sessions/session-book.js';
import type { SessionOutcome as DomainSessionOutcome } from './sessions/session-book.js';
import { formatActor } from './types.js';
import type * as domain from './types.js';
import { invalid } from './requests/problems.js';

/** A two-way map between a proto enum and domain names; UNSPECIFIED maps to undefined. */
function enumMap<D extends string>(name: string, pairs: ReadonlyArray<readonly [D, number]>) {
  const toProto = new Map(pairs);
  const fromProto = new Map(pairs.map(([d, p]) => [p, d] as const));
  return {
    read(field: string, value: number): D | undefined {
      if (value === 0) return undefined;
      const found = fromProto.get(value);
      if (found === undefined)
        invalid(
          field,
          `${field} is not a known ${name}`,
          pairs.map(([d]) => d).join(', '),
          String(value),
        );
      return found;
    },
    write(value: D): number {
      return toProto.get(value) ?? 0;
    },
  };
}

export const preferenceStatus = enumMap<domain.PreferenceStatus>('preference status', [
  ['proposed', PreferenceStatus.PROPOSED],
  ['active', PreferenceStatus.ACTIVE],
]);
export const preferenceSource = enumMap<domain.PreferenceSource>('preference source', [
  ['stated', PreferenceSource.STATED],
  ['agent', PreferenceSource.AGENT],
  ['derived', PreferenceSource.DERIVED],
]);
export const candidateKind = enumMap<domain.CandidateKind>('candidate kind', [
  ['preference', CandidateKind.PREFERENCE],
  ['saved_query', CandidateKind.SAVED_QUERY],
  ['skill', CandidateKind.SKILL],
]);
export const candidateStatus = enumMap<domain.CandidateStatus>('candidate status', [
  ['pending', CandidateStatus.PENDING],
  ['confirmed', CandidateStatus.CONFIRMED],
  ['rejected', CandidateStatus.REJECTED],
]);
export const revisionStatus = enumMap<domain.RevisionStatus>('revision status', [
  ['proposed', RevisionStatus.PROPOSED],
  ['approved', RevisionStatus.APPROVED],
  ['rejected', RevisionStatus.REJECTED],
]);
export const failureAction = enumMap<domain.FailureAction>('failure action', [
  ['stop', SkillFailureAction.STOP],
  ['retry', SkillFailureAction.RETRY],
  ['skip', SkillFailureAction.SKIP],
  ['ask_user', SkillFailureAction.ASK_USER],
]);
export const sessionOutcome = enumMap<DomainSessionOutcome>('session outcome', [
  ['succeeded', SessionOutcome.SUCCEEDED],
  ['failed', SessionOutcome.FAILED],
  ['abandoned', SessionOutcome.ABANDONED],
]);
export const recallKind = enumMap<RecallItemKind>('recall kind', [
  ['preference', RecallKind.PREFERENCE],
  ['saved_query', RecallKind.SAVED_QUERY],
  ['skill', RecallKind.SKILL],
]);

const time = (date: Date | undefined) => (date === undefined ? undefined : timestampFromDate(date));

export function valueFromProto(value: Value | undefined): domain.JsonValue | undefined {
  return value === undefined ? undefined : (toJson(ValueSchema, value) as domain.JsonValue);
}

export function sessionMessage(s: SessionSnapshot): MessageInitShape<typeof SessionSchema> {
  return {
    tenant: s.owner.tenant,
    sessionId: s.sessionId,
    agent: s.owner.agent,
    user: s.owner.user,
    version: s.version,
    state: s.state,
    createdAt: time(s.createdAt),
    updatedAt: time(s.updatedAt),
    expiresAt: time(s.expiresAt),
    status: s.ended === undefined ? SessionStatus.OPEN : SessionStatus.ENDED,
    outcome:
      s.ended === undefined ? SessionOutcome.UNSPECIFIED : sessionOutcome.write(s.ended.outcome),
    endedAt: time(s.ended?.at),
  };
}

export function preferenceMessage(
  p: domain.PreferenceRecord,
): MessageInitShape<typeof PreferenceSchema> {
  return {
    id: p.id,
    tenant: p.owner.tenant,
    agent: p.owner.agent,
    user: p.owner.user,
    key: p.key,
    value: fromJson(ValueSchema, p.value),
    text: p.text,
    status: preferenceStatus.write(p.status),
    sessionId: p.sessionId,
    createdBy: formatActor(p.createdBy),
    createdAt: time(p.createdAt),
    updatedAt: time(p.updatedAt),
    confirmedBy: p.confirmedBy ? formatActor(p.confirmedBy) : '',
    kind: p.kind,
    source: preferenceSource.write(p.source),
    lastConfirmedAt: time(p.lastConfirmedAt),
    score: p.score,
  };
}

export function candidateMessage(
  c: domain.CandidateRecord,
): MessageInitShape<typeof CandidateSchema> {
  return {
    id: c.id,
    tenant: c.owner.tenant,
    agent: c.owner.agent,
    user: c.owner.user,
    kind: candidateKind.write(c.kind),
    proposal: c.proposal,
    summary: c.summary,
    confidence: c.confidence,
    evidenceCallIds: c.evidenceCallIds,
    status: candidateStatus.write(c.status),
    createdAt: time(c.createdAt),
    decidedBy: c.decidedBy ? formatActor(c.decidedBy) : '',
    reason: c.reason,
    createdId: c.createdId,
    decidedAt: time(c.decidedAt),
  };
}

function revisionFields<C>({ capability, revision }: CapabilityView<C>) {
  return {
    id: capability.id,
    tenant: capability.owner.tenant,
    agent: capability.owner.agent,
    user: capability.owner.user,
    name: capability.name,
    revision: revision.revision,
    status: revisionStatus.write(revision.status),
    createdBy: formatActor(revision.proposedBy),
    createdAt: time(revision.createdAt),
    decidedBy: revision.decidedBy ? formatActor(revision.decidedBy) : '',
    decidedAt: time(revision.decidedAt),
    reason: revision.reason,
    contentHash: revision.contentHash,
    baseHash: revision.baseHash,
  };
}

export function savedQueryMessage(
  view: CapabilityView<domain.SavedQueryContent>,
): MessageInitShape<typeof SavedQuerySchema> {
  const c = view.revision.content;
  return {
    ...revisionFields(view),
    description: c.description,
    tool: c.tool,
    arguments: c.arguments,
    parameters: c.parameters,
  };
}

export function skillMessage(
  view: CapabilityView<domain.SkillContent>,
): MessageInitShape<typeof SkillSchema> {
  const c = view.revision.content;
  return {
    ...revisionFields(view),
    description: c.description,
    instructions: c.instructions,
    tools: c.tools,
    steps: c.steps.map((s) => ({ ...s, onFailure: failureAction.write(s.onFailure) })),
    inputs: c.inputs,
    outputs: c.outputs,
    resources: c.resources,
    permissions: c.permissions,
    failureHandling: c.failureHandling,
    sessionId: view.capability.sessionId,
  };
}

export function savedQueryContent(request: {
  description: string;
  tool: string;
  arguments?: domain.JsonObject | undefined;
  parameters: SavedQueryParameterMessage[];
}): domain.SavedQueryContent {
  return {
    description: request.description,
    tool: request.tool,
    arguments: request.arguments ?? {},
    parameters: request.parameters.map((p) => ({
      name: p.name,
      path: p.path,
      type: p.type,
      description: p.description,
    })),
  };
}

const sortedSet = (items: string[]) => [...new Set(items)].sort();

export function skillContent(request: {
  description: string;
  instructions: string;
  tools: string[];
  steps: SkillStepMessage[];
  inputs: SkillParameterMessage[];
  outputs: SkillParameterMessage[];
  resources: string[];
  permissions: string[];
  failureHandling: string;
}): domain.SkillContent {
  const steps = request.steps.map((s, i): domain.SkillStep => ({
    id: s.id,
    tool: s.tool,
    arguments: s.arguments ?? {},
    bindings: { ...s.bindings },
    description: s.description,
    onFailure: failureAction.read(`steps[${i}].on_failure`, s.onFailure) ?? 'stop',
  }));
  const parameter = (p: SkillParameterMessage): domain.SkillParameter => ({
    name: p.name,
    type: p.type,
    description: p.description,
    required: p.required,
    source: p.source,
  });
  return {
    description: request.description,
    instructions: request.instructions,
    tools: sortedSet(request.tools.length > 0 ? request.tools : steps.map((s) => s.tool)),
    steps,
    inputs: request.inputs.map(parameter),
    outputs: request.outputs.map(parameter),
    resources: sortedSet(request.resources),
    permissions: sortedSet(request.permissions),
    failureHandling: request.failureHandling,
  };
}

/**
 * The memory service's domain: who owns a memory item, who wrote or reviewed it, and the
 * content of each tier. Stored documents and gRPC messages are converted to and from these.
 */
import type { JsonObject, JsonValue } from '@tollgate/core';

export type { JsonObject, JsonValue };

/**
 * Whose memory an item is: a tenant, an agent, and a user (empty = every user of the agent).
 * Tenants are hard boundaries; users never see each other's items.
 */
export interface Owner {
  tenant: string;
  agent: string;
  user: string;
}

/**
 * Who wrote, proposed or reviewed something: an agent, and the user it acted for ('' when the
 * token had no user claim). A principal with a user claim counts as that person.
 */
export interface Actor {
  agent: string;
  user: string;
}

/** The memory service itself, as the writer of derived items. */
export const MEMORY_ACTOR: Actor = { agent: 'memory', user: '' };

/** `agent:<a>` or `agent:<a>,user:<u>`, as shown in `created_by` / `decided_by`. */
export function formatActor(actor: Actor): string {
  return actor.user === '' ? `agent:${actor.agent}` : `agent:${actor.agent},user:${actor.user}`;
}

export type PreferenceStatus = 'proposed' | 'active';
export type PreferenceSource = 'stated' | 'agent' | 'derived';

/** A fact about a user or agent, one per (owner, key). */
export interface PreferenceRecord {
  id: string;
  owner: Owner;
  key: string;
  kind: string;
  value: JsonValue;
  text: string;
  status: PreferenceStatus;
  source: PreferenceSource;
  sessionId: string;
  createdBy: Actor;
  confirmedBy: Actor | undefined;
  createdAt: Date;
  updatedAt: Date;
  lastConfirmedAt: Date | undefined;
  /** Decayed usage score of a derived preference; 0 otherwise. */
  score: number;
  /** Bumped on every change (compare-and-set). */
  version: number;
}

export type CandidateKind = 'preference' | 'saved_query' | 'skill';
export type CandidateStatus = 'pending' | 'confirmed' | 'rejected';

/** Something inferred from completed calls, waiting for a person. */
export interface CandidateRecord {
  id: string;
  owner: Owner;
  kind: CandidateKind;
  /** The signal it came from; at most one candidate per owner and signal, ever. */
  signal: string;
  proposal: JsonObject;
  summary: string;
  confidence: number;
  evidenceCallIds: string[];
  status: CandidateStatus;
  proposedBy: Actor;
  createdAt: Date;
  decidedBy: Actor | undefined;
  decidedAt: Date | undefined;
  reason: string;
  createdId: string;
}

/** A value a saved query leaves open. */
export interface SavedQueryParameter {
  name: string;
  /** JSON Pointer into the arguments. */
  path: string;
  type: string;
  description: string;
}

/** The reviewed content of one saved-query revision. */
export interface SavedQueryContent {
  description: string;
  tool: string;
  arguments: JsonObject;
  parameters: SavedQueryParameter[];
}

export type FailureAction = 'stop' | 'retry' | 'skip' | 'ask_user';

export interface SkillStep {
  id: string;
  tool: string;
  arguments: JsonObject;
  /** Argument JSON Pointer → `inputs.<name>` or `steps.<id><pointer>`. */
  bindings: Record<string, string>;
  description: string;
  onFailure: FailureAction;
}

export interface SkillParameter {
  name: string;
  type: string;
  description: string;
  required: boolean;
  source: string;
}

/** The reviewed content of one skill revision. */
export interface SkillContent {
  description: string;
  instructions: string;
  tools: string[];
  steps: SkillStep[];
  inputs: SkillParameter[];
  outputs: SkillParameter[];
  resources: string[];
  permissions: string[];
  failureHandling: string;
}

export type RevisionStatus = 'proposed' | 'approved' | 'rejected';

/** One immutable revision of a saved query or skill, and its review. */
export interface Revision<C> {
  revision: number;
  content: C;
  contentHash: string;
  /** Hash of the approved revision this one edits ('' when none was approved). */
  baseHash: string;
  status: RevisionStatus;
  proposedBy: Actor;
  createdAt: Date;
  decidedBy: Actor | undefined;
  decidedAt: Date | undefined;
  reason: string;
}

/** A saved query or skill with every revision; the approved one is in effect. */
export interface Capability<C> {
  id: string;
  owner: Owner;
  name: string;
  sessionId: string;
  revisions: Revision<C>[];
  /** 0 while none is approved. */
  approvedRevision: number;
  approvedHash: string;
  createdAt: Date;
  updatedAt: Date;
  /** Bumped on every change (compare-and-set). */
  version: number;
}

export type CapabilityKind = 'saved_query' | 'skill';

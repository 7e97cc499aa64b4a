import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import { API_VERSION, applyMergePatch } from '@tollgate/core';
import { toolCallError } from '../errors.js';
import { llmError, openaiClient } from '../agent/llm.js';
import type { LlmConfig } from '../agent/llm.js';
import { errorFromRpc } from '../wire-errors.js';
import { readDraft } from './draft.js';
import type { ResourceDraft } from './draft.js';
import { PROPOSE_RESOURCE_TOOL, resourceExtractionSchema } from './extraction-schema.js';

/** The registry's gRPC address and the operator's token (sent as `authorization: Bearer`). */
export interface RegistryTarget {
  address: string;
  token: string;
  /** Per-call deadline, ms (default 30 000: a draft runs discovery against the real system). */
  deadlineMs?: number;
}

export type RegistryClient = RpcClient<typeof RegistryService>;

export interface ProposeResourceOptions {
  llm: LlmConfig;
  /** What the user said about the resource, in their words. */
  text: string;
  /** Where to draft it: a target to connect to, or a registry client the caller holds. */
  registry: RegistryTarget | RegistryClient;
  /** Conversation the proposal belongs to. */
  sessionId?: string;
  /**
   * The proposal being corrected (what was extracted before): `text` is then the person's
   * correction, read as a change to it ("amount is the total in euros").
   */
  current?: JsonObject;
}

/** A resource read out of a conversation and drafted by the registry, awaiting the user's yes. */
export interface ResourceProposal extends ResourceDraft {
  /** What the model extracted (partial descriptor), before the registry merged discovery in. */
  extracted: JsonObject;
}

const EXTRACTION_PROMPT = [
  `Read the user's description of a data resource and call ${PROPOSE_RESOURCE_TOOL} with what they said.`,
  'Fill only what the user stated or clearly implied; leave everything else out. Never put a',
  'password, key or token in any field: credentials are references like env://VAR or vault://path.',
].join(' ');

/**
 * Conversational registration, step one: the model fills the Resource descriptor's JSON Schema
 * from `text`, the registry drafts it (discovering the real schema) and the proposal comes back
 * with its echo — "I understood: … Is that correct?". Nothing is saved until
 * `confirmResourceDraft` is called, which should happen only after the user agrees.
 */
export async function proposeResourceFromConversation(
  options: ProposeResourceOptions,
): Promise<ResourceProposal> {
  const read = await extractResource(options.llm, options.text, options.current);
  const extracted = options.current ? (applyMergePatch(options.current, read) as JsonObject) : read;
  const descriptor = toDescriptor(extracted);
  return withRegistry(options.registry, async (registry) => {
    let response;
    try {
      response = await registry.draft({ descriptor, sessionId: options.sessionId ?? '' });
    } catch (err) {
      throw errorFromRpc(err, 'registry Draft');
    }
    if (response.draft === undefined)
      throw toolCallError({ code: 'INTERNAL', message: 'registry Draft returned no draft' });
    return { ...readDraft(response.draft), extracted };
  });
}

export interface ConfirmDraftOptions {
  registry: RegistryTarget | RegistryClient;
  draftId: string;
  /** JSON merge patch applied to the drafted descriptor first (e.g. allowed roles). */
  edits?: JsonObject;
  /** Optimistic concurrency on the resource (0: must not exist yet). */
  expectedVersion?: number;
}

/** The resource version a confirmed draft became. */
export interface ConfirmedResource {
  tenant: string;
  environment: string;
  name: string;
  version: number;
  contentHash: string;
  descriptor: JsonObject;
}

/** Step two, after the user said yes: the draft becomes a resource version. */
export async function confirmResourceDraft(
  options: ConfirmDraftOptions,
): Promise<ConfirmedResource> {
  return withRegistry(options.registry, async (registry) => {
    let response;
    try {
      response = await registry.confirm({
        draftId: options.draftId,
        ...(options.edits ? { edits: options.edits } : {}),
        ...(options.expectedVersion !== undefined
          ? { expectedVersion: options.expectedVersion }
          : {}),
      });
    } catch (err) {
      throw errorFromRpc(err, `registry Confirm ${options.draftId}`);
    }
    const resource = response.resource;
    if (resource === undefined)
      throw toolCallError({ code: 'INTERNAL', message: 'registry Confirm returned no resource' });
    return {
      tenant: resource.tenant,
      environment: resource.environment,
      name: resource.name,
      version: resource.version,
      contentHash: resource.contentHash,
      descriptor: resource.descriptor ?? {},
    };
  });
}

/** Or, when the user said no: the draft is discarded. */
export async function rejectResourceDraft(options: {
  registry: RegistryTarget | RegistryClient;
  draftId: string;
  reason?: string;
}): Promise<void> {
  await withRegistry(options.registry, async (registry) => {
    try {
      await registry.reject({ draftId: options.draftId, reason: options.reason ?? '' });
    } catch (err) {
      throw errorFromRpc(err, `registry Reject ${options.draftId}`);
    }
  });
}

/** Marks the system message of a correction; the current proposal follows it as JSON. */
export const CURRENT_PROPOSAL_MARKER = 'The current proposal, to be corrected:';

const REVISION_PROMPT = [
  'The user is correcting a proposal you made. Call the function with ONLY what their words change',
  "(e.g. a field's type or description, the index, the endpoint); leave out everything they did not mention.",
].join(' ');

async function extractResource(
  llm: LlmConfig,
  text: string,
  current: JsonObject | undefined,
): Promise<JsonObject> {
  const system = current
    ? `${EXTRACTION_PROMPT} ${REVISION_PROMPT}\n${CURRENT_PROPOSAL_MARKER}\n${JSON.stringify(current)}`
    : EXTRACTION_PROMPT;
  const completion = await openaiClient(llm)
    .chat.completions.create({
      model: llm.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: text },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: PROPOSE_RESOURCE_TOOL,
            description:
              'Propose a Tollgate Resource descriptor (partial) from what the user said.',
            parameters: resourceExtractionSchema(),
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: PROPOSE_RESOURCE_TOOL } },
      ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
    })
    .catch((err: unknown) => {
      throw llmError(err);
    });
  const message = completion.choices[0]?.message;
  const call = message?.tool_calls?.find(
    (c) => c.type === 'function' && c.function.name === PROPOSE_RESOURCE_TOOL,
  );
  const raw = call?.type === 'function' ? call.function.arguments : (message?.content ?? '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw toolCallError({
      code: 'INVALID_ARGUMENT',
      message:
        'the model could not read a resource out of that; say where it is (URL) and what it holds (index, fields)',
    });
  }
  return withoutNulls(parsed as JsonObject) as JsonObject;
}

/** The extracted parts inside a full descriptor envelope. */
export function toDescriptor(extracted: JsonObject): JsonObject {
  const metadata = isObject(extracted.metadata) ? extracted.metadata : {};
  const spec = isObject(extracted.spec) ? extracted.spec : {};
  return { apiVersion: API_VERSION, kind: 'Resource', metadata, spec };
}

/** Models in strict mode send `null` for what they leave out; a descriptor has no nulls. */
function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(withoutNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

async function withRegistry<T>(
  target: RegistryTarget | RegistryClient,
  fn: (client: RegistryClient) => Promise<T>,
): Promise<T> {
  if (typeof (target as Partial<RegistryTarget>).address !== 'string')
    return fn(target as RegistryClient);
  const { address, token, deadlineMs } = target as RegistryTarget;
  const client = createClient(RegistryService, address, {
    metadata: { authorization: `Bearer ${token}` },
    defaultDeadlineMs: deadlineMs ?? 30_000,
  });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

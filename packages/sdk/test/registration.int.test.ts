import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import type { RpcContext } from '@tollgate/contracts';
import { DraftSchema, DraftStatus, RegistryService } from '@tollgate/contracts/registry/v1';
import type {
  ConfirmRequest,
  Draft,
  DraftRequest,
  RejectRequest,
} from '@tollgate/contracts/registry/v1';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DeniedError,
  FixArgumentsError,
  confirmResourceDraft,
  proposeResourceFromConversation,
  ResourceConversation,
  readAgreement,
  rejectResourceDraft,
} from '../src/index.js';
import { createDemoScript, startScriptedModelServer } from '../src/demo.js';
import { resourceExtractionSchema } from '../src/registration/extraction-schema.js';
import type { ModelScript, ScriptedModelServer } from '../src/demo.js';
import { startStandIn } from './support/grpc-standin.js';
import type { StandInServer } from './support/grpc-standin.js';

const OPERATOR_TOKEN = 'operator-token';
const PROSE =
  'I have an ES at http://127.0.0.1:9200, index orders, id is keyword, amount is a number, created_at is a date.';

/** What the stand-in registry was asked. */
const seen = {
  drafts: [] as DraftRequest[],
  confirms: [] as ConfirmRequest[],
  rejects: [] as RejectRequest[],
};
const drafts = new Map<string, Draft>();
let registryEcho = '';
let registry: StandInServer;
let model: ScriptedModelServer | undefined;

function authorize(context: RpcContext): void {
  if (context.bearerToken() !== OPERATOR_TOKEN) {
    throw new RpcError(RpcStatus.UNAUTHENTICATED, 'the token was not accepted', {
      tollgateCode: 'UNAUTHENTICATED',
    });
  }
}

beforeAll(async () => {
  // STAND-IN for services/registry: drafts with one extra discovered field, confirms into version 1.
  registry = await startStandIn(RegistryService, {
    draft: (request, context) => {
      authorize(context);
      seen.drafts.push(request);
      const descriptor = request.descriptor ?? {};
      const declared = Object.entries(
        (((descriptor.spec as JsonObject).schema as JsonObject | undefined)?.fields ??
          {}) as JsonObject,
      ).map(([name, spec]) => ({ name, type: String((spec as JsonObject).type), declared: true }));
      const draft = create(DraftSchema, {
        id: `draft-${seen.drafts.length}`,
        tenant: 'team-a',
        environment: 'prod',
        name: String((descriptor.metadata as JsonObject).name),
        descriptor,
        fields: [
          ...declared,
          { name: 'status', type: 'keyword', proposedCapabilities: ['filterable', 'returnable'] },
        ],
        status: DraftStatus.PENDING,
        sessionId: request.sessionId,
        echo: registryEcho,
        confirmable: false,
      });
      drafts.set(draft.id, draft);
      return { draft };
    },
    confirm: (request, context) => {
      authorize(context);
      seen.confirms.push(request);
      const draft = drafts.get(request.draftId);
      if (draft === undefined)
        throw new RpcError(RpcStatus.NOT_FOUND, `no draft ${request.draftId}`, {
          tollgateCode: 'NOT_FOUND',
        });
      return {
        resource: {
          tenant: draft.tenant,
          environment: draft.environment,
          name: draft.name,
          version: 1,
          contentHash: 'h1',
          descriptor: draft.descriptor,
        },
        draft: { ...draft, status: DraftStatus.CONFIRMED, version: 1 },
      };
    },
    reject: (request, context) => {
      authorize(context);
      seen.rejects.push(request);
      return {};
    },
  });
});

afterEach(async () => {
  registryEcho = '';
  await model?.close();
  model = undefined;
});

afterAll(async () => {
  await registry?.close();
});

async function llm(script: ModelScript = createDemoScript()) {
  model = await startScriptedModelServer(script);
  return { baseURL: model.baseURL, model: model.model, maxRetries: 0 };
}

describe('registration - conversational', () => {
  it('registration - prose becomes a draft and an echo; Confirm happens only after the user agrees', async () => {
    const before = { drafts: seen.drafts.length, confirms: seen.confirms.length };
    const proposal = await proposeResourceFromConversation({
      llm: await llm(),
      text: PROSE,
      registry: { address: registry.address, token: OPERATOR_TOKEN },
      sessionId: 'conv-1',
    });

    // The model was made to fill the Resource schema.
    const asked = model!.requests[0]!;
    expect(asked.forcedTool).toBe('propose_resource');
    expect(asked.tools[0]!.parameters).toEqual(resourceExtractionSchema());
    // The registry drafted the full envelope with what was said.
    const drafted = seen.drafts.at(-1)!;
    expect(drafted.sessionId).toBe('conv-1');
    expect(drafted.descriptor).toEqual({
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'es_orders' },
      spec: {
        type: 'elasticsearch',
        connection: { endpoint: 'http://127.0.0.1:9200' },
        target: { index: 'orders' },
        schema: {
          fields: {
            id: { type: 'keyword', filterable: true, returnable: true },
            amount: { type: 'double', range: true, sortable: true, returnable: true },
            created_at: { type: 'date', range: true, sortable: true, returnable: true },
          },
        },
      },
    });
    expect(proposal.draftId).toBe(`draft-${before.drafts + 1}`);
    expect(proposal.echo).toContain(
      'I understood: Elasticsearch index "orders" at http://127.0.0.1:9200; as resource es_orders; fields id (keyword), amount (double), created_at (date).',
    );
    expect(proposal.echo).toContain('Discovery also found status (keyword) (not enabled).');
    expect(proposal.echo.endsWith('Is that correct?')).toBe(true);
    expect(seen.confirms.length).toBe(before.confirms);

    expect(readAgreement('yes, but only support may use it')).toBe('yes');
    const confirmed = await confirmResourceDraft({
      registry: { address: registry.address, token: OPERATOR_TOKEN },
      draftId: proposal.draftId,
      edits: { spec: { access: { allowedRoles: ['support'] } } },
    });
    expect(seen.confirms.at(-1)).toMatchObject({
      draftId: proposal.draftId,
      edits: { spec: { access: { allowedRoles: ['support'] } } },
    });
    expect(confirmed).toMatchObject({ name: 'es_orders', version: 1, environment: 'prod' });
  });

  it('registration - the registry’s own echo is passed on; a refusal rejects the draft', async () => {
    registryEcho = 'I understood: index orders with 3 fields. Correct?';
    const target = { address: registry.address, token: OPERATOR_TOKEN };
    const proposal = await proposeResourceFromConversation({
      llm: await llm(),
      text: PROSE,
      registry: target,
    });
    expect(proposal.echo).toBe(registryEcho);
    expect(readAgreement('no, amount is a long')).toBe('no');
    await rejectResourceDraft({
      registry: target,
      draftId: proposal.draftId,
      reason: 'amount is a long',
    });
    expect(seen.rejects.at(-1)).toMatchObject({
      draftId: proposal.draftId,
      reason: 'amount is a long',
    });
  });

  it('registration - a token the registry refuses is a DeniedError', async () => {
    const err = await proposeResourceFromConversation({
      llm: await llm(),
      text: PROSE,
      registry: { address: registry.address, token: 'wrong' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeniedError);
    expect(err).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('registration - a model that extracts nothing drafts nothing', async () => {
    const before = seen.drafts.length;
    const err = await proposeResourceFromConversation({
      llm: await llm(() => ({ content: 'I am not sure what you mean.' })),
      text: 'hello there',
      registry: { address: registry.address, token: OPERATOR_TOKEN },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixArgumentsError);
    expect(seen.drafts.length).toBe(before);
  });
  it('registration - "yes, but …" revises the draft and asks again; only a plain yes saves', async () => {
    const conversation = new ResourceConversation({
      llm: await llm(),
      registry: { address: registry.address, token: OPERATOR_TOKEN },
    });
    const proposed = await conversation.say(PROSE);
    expect(proposed.state).toBe('proposed');
    const confirmsBefore = seen.confirms.length;
    const hedged = await conversation.say('yes, but amount is the total in euros');
    expect(hedged.state).toBe('revised');
    expect(seen.confirms.length).toBe(confirmsBefore);
    const fields = (hedged.draft?.extracted.spec as JsonObject).schema as JsonObject;
    expect(((fields.fields as JsonObject).amount as JsonObject).description).toBe(
      'the total in euros',
    );
  });
});

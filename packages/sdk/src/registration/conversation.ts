/**
 * Registering a resource by conversation: the person describes it in their words, the registry
 * drafts it against the real system and the draft is echoed back, the person corrects it in
 * words, and only an explicit yes saves it. The dialogue runs in code, not in the model: the
 * model only reads text into the descriptor schema; whether a reply is a yes is read by
 * `readAgreement`; a pasted password or key is refused before it reaches the model, the
 * registry or any store.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import {
  DEFAULT_CREDENTIAL_NAMESPACES,
  credentialNamespacePrefixes,
  parseCredentialNamespaces,
  secretReason,
} from '@tollgate/core';
import { isToolCallError } from '../errors.js';
import type { LlmConfig } from '../agent/llm.js';
import type { LocalTool } from '../agent/local-tool.js';
import { readAgreement } from './draft.js';
import {
  confirmResourceDraft,
  proposeResourceFromConversation,
  rejectResourceDraft,
} from './propose.js';
import type {
  ConfirmedResource,
  RegistryClient,
  RegistryTarget,
  ResourceProposal,
} from './propose.js';

/** How one turn of the conversation went. */
export type RegistrationState =
  /** A first draft, echoed back with a question. */
  | 'proposed'
  /** The draft changed as the person said; the new echo asks again. */
  | 'revised'
  /** The person said yes: the draft is a resource version now. */
  | 'saved'
  /** The person said no: the draft is gone, nothing was saved. */
  | 'discarded'
  /** The message held a credential: refused, kept nowhere, not forwarded. */
  | 'refused_secret'
  /** The registry could not draft or save it; the reply says why. Nothing changed. */
  | 'failed'
  /** Nothing to act on in the reply (no yes, no no, no change read); the question stands. */
  | 'unclear';

export interface RegistrationTurn {
  state: RegistrationState;
  /** What to tell the person, in plain language. */
  reply: string;
  /** The draft awaiting an answer after this turn, if any. */
  draft?: ResourceProposal;
  /** The saved version, when `state` is `saved`. */
  resource?: ConfirmedResource;
}

export interface ResourceConversationOptions {
  llm: LlmConfig;
  registry: RegistryTarget | RegistryClient;
  sessionId?: string;
  /**
   * Where credential references may point (the registry's `TOLLGATE_CREDENTIAL_NAMESPACES`;
   * default: the product's default), to say where a refused secret should go instead.
   */
  credentialNamespaces?: string;
}

/** A registration dialogue: call `say` with each thing the person says. */
export class ResourceConversation {
  readonly #options: ResourceConversationOptions;
  #pending: ResourceProposal | undefined;

  constructor(options: ResourceConversationOptions) {
    this.#options = options;
  }

  /** The draft awaiting the person's answer. */
  get pending(): ResourceProposal | undefined {
    return this.#pending;
  }

  async say(text: string): Promise<RegistrationTurn> {
    const secret = secretReason(text);
    if (secret !== undefined) return this.#turn('refused_secret', this.#refuseSecret(secret));
    const pending = this.#pending;
    if (pending === undefined) return this.#draft(text, undefined);
    const answer = readAgreement(text);
    // "yes, but only support may use it" is a correction first: saving it as it stands would
    // drop what the person just asked for. The revised draft is echoed and asked about again.
    const condition = answer === 'yes' ? withoutAgreement(text) : '';
    if (answer === 'yes' && condition === '') return this.#confirm(pending);
    if (answer === 'yes') return this.#draft(condition, pending);
    const correction = answer === 'no' ? withoutRefusal(text) : text.trim();
    if (answer === 'no' && correction === '') return this.#discard(pending);
    return this.#draft(correction, pending);
  }

  async #draft(text: string, previous: ResourceProposal | undefined): Promise<RegistrationTurn> {
    let proposal: ResourceProposal;
    try {
      proposal = await proposeResourceFromConversation({
        llm: this.#options.llm,
        text,
        registry: this.#options.registry,
        ...(previous ? { current: previous.extracted } : {}),
        ...(this.#options.sessionId ? { sessionId: this.#options.sessionId } : {}),
      });
    } catch (err) {
      return this.#turn('failed', `I could not draft that: ${reason(err)}`);
    }
    if (previous !== undefined) {
      if (sameJson(proposal.extracted, previous.extracted)) {
        await this.#rejectQuietly(proposal.draftId, 'unchanged revision');
        return this.#turn(
          'unclear',
          'I did not read a change in that. Is the proposal above correct? Answer yes, no, or tell me what to change.',
        );
      }
      await this.#rejectQuietly(previous.draftId, 'revised in conversation');
    }
    this.#pending = proposal;
    return this.#turn(previous ? 'revised' : 'proposed', proposal.echo);
  }

  async #confirm(pending: ResourceProposal): Promise<RegistrationTurn> {
    // Said in words, a resource is saved only once the real system confirmed it exists: a
    // declaration file may name a system that is down for now, a sentence may not.
    const unreached = pending.warnings.find((w) => w.code === 'DISCOVERY_FAILED');
    if (unreached !== undefined) {
      return this.#turn(
        'unclear',
        `I cannot save it: the system could not be reached to check what you described (${unreached.message}). Correct the address, or say no to drop it.`,
      );
    }
    if (!pending.confirmable) {
      const missing = pending.warnings.map((w) => w.message).join(' ');
      return this.#turn(
        'unclear',
        `It cannot be saved as it is${missing ? `: ${missing}` : ''}. Tell me what is missing, or say no to drop it.`,
      );
    }
    let resource: ConfirmedResource;
    try {
      resource = await confirmResourceDraft({
        registry: this.#options.registry,
        draftId: pending.draftId,
      });
    } catch (err) {
      return this.#turn('failed', `I could not save it: ${reason(err)}`);
    }
    this.#pending = undefined;
    return {
      state: 'saved',
      reply: `Saved: resource ${resource.name} version ${resource.version} in ${resource.tenant}/${resource.environment}. Agents whose roles it allows get its tools now.`,
      resource,
    };
  }

  async #discard(pending: ResourceProposal): Promise<RegistrationTurn> {
    try {
      await rejectResourceDraft({
        registry: this.#options.registry,
        draftId: pending.draftId,
        reason: 'the person said no',
      });
    } catch (err) {
      return this.#turn('failed', `I could not drop the draft: ${reason(err)}`);
    }
    this.#pending = undefined;
    return this.#turn('discarded', 'Understood: nothing was saved.');
  }

  /** A superseded draft expires anyway; failing to reject it early costs nothing. */
  async #rejectQuietly(draftId: string, why: string): Promise<void> {
    await rejectResourceDraft({ registry: this.#options.registry, draftId, reason: why }).catch(
      () => undefined,
    );
  }

  #refuseSecret(what: string): string {
    const pending = this.#pending;
    const scope = pending
      ? { tenant: pending.tenant, environment: pending.environment }
      : { tenant: '{tenant}', environment: '{environment}' };
    const name = pending?.name ? pending.name.toUpperCase().replace(/[^A-Z0-9]/g, '_') : 'NAME';
    let example = 'env://VARIABLE';
    try {
      const namespaces = parseCredentialNamespaces(
        this.#options.credentialNamespaces ?? DEFAULT_CREDENTIAL_NAMESPACES,
      );
      const env = credentialNamespacePrefixes(namespaces, scope).find((p) =>
        p.startsWith('env://'),
      );
      if (env !== undefined) example = `${env}${name}`;
    } catch {
      // An unreadable namespace setting only costs the example.
    }
    return [
      `That looks like a credential (${what}). I never take passwords or keys in a conversation: I did not keep it or pass it on.`,
      `Put it where Tollgate reads credentials — for example an environment variable of the services, ${example.replace(/^env:\/\//, '')} — and tell me its reference instead, like "credential ${example}".`,
    ].join(' ');
  }

  #turn(state: RegistrationState, reply: string): RegistrationTurn {
    return { state, reply, ...(this.#pending ? { draft: this.#pending } : {}) };
  }
}

/** "yes, but amount is in euros" → "amount is in euros"; "yes please" → "". */
function withoutAgreement(text: string): string {
  return text
    .trim()
    .replace(
      /^(?:yes|y|yeah|yep|yup|correct|right|ok|okay|sure|confirm(?:ed)?|looks (?:good|right)|that'?s (?:right|correct)|go ahead|是的|是|对|好的|好|确认|没错)[\s,.;:!，。；：！-]*/iu,
      '',
    )
    .replace(/^(?:but|and|except|however|只是|但是|但|不过)[\s,，]*/iu, '')
    .replace(/^(?:please|thanks|thank you|save it|do it|请|谢谢)[\s,.!。！]*$/iu, '')
    .trim();
}

/** "no, amount is the total in euros" → "amount is the total in euros". */
function withoutRefusal(text: string): string {
  return text
    .trim()
    .replace(
      /^(?:no|nope|n|wrong|incorrect|not (?:quite|really|correct)|不对|不是|不|否|错)[\s,.;:!，。；：！-]*/iu,
      '',
    )
    .trim();
}

function reason(err: unknown): string {
  if (isToolCallError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sorted(value[key]!);
  return out;
}

/** The name the agent loop offers registration under. */
export const REGISTER_RESOURCE_TOOL = 'register_resource';

/**
 * Registration as a tool of the agent loop: the model decides the person is describing a data
 * system and calls it; the conversation takes the person's own words from there. The reply
 * (the echo, or why not) is said to the person as it is. While a draft is pending, route the
 * person's next messages to `conversation.say` directly: a yes is read by code, never by the model.
 */
export function registrationTool(conversation: ResourceConversation): LocalTool {
  return {
    name: REGISTER_RESOURCE_TOOL,
    description:
      'Register a data system the person describes (a database, search index, HTTP API or MCP server: where it is, what it holds) so agents can use it. Call it when they describe one; they will be shown what was understood and asked to confirm.',
    parameters: {
      type: 'object',
      properties: {
        description: { type: 'string', description: 'What the person said about it.' },
      },
      required: ['description'],
      additionalProperties: false,
    },
    async run(_args, { task }) {
      const turn = await conversation.say(task);
      return {
        content: {
          status: turn.state === 'failed' || turn.state === 'refused_secret' ? 'error' : 'ok',
          state: turn.state,
          reply: turn.reply,
        },
        answer: turn.reply,
      };
    },
  };
}

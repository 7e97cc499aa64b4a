import {
  checkParseEntities,
  checkParsePolicySet,
  isAuthorized,
  isAuthorizedPartial,
  preparsePolicySet,
  preparseSchema,
  statefulIsAuthorized,
} from '@cedar-policy/cedar-wasm/nodejs';
import type {
  AuthorizationAnswer,
  AuthorizationCall,
  CheckParseAnswer,
  EntitiesParsingCall,
  PartialAuthorizationAnswer,
  PartialAuthorizationCall,
  PolicySet,
  StatefulAuthorizationCall,
} from '@cedar-policy/cedar-wasm/nodejs';

/**
 * The Cedar calls a decider makes, so tests (and alternative builds) can supply their own.
 * Preparsed schemas and policy sets live in the engine's (thread-local) cache under the names
 * the decider gives them; a decider reuses its names on reload, so the cache does not grow.
 */
export interface CedarEngine {
  preparseSchema(name: string, schema: string): CheckParseAnswer;
  preparsePolicySet(id: string, policies: PolicySet): CheckParseAnswer;
  checkParseEntities(call: EntitiesParsingCall): CheckParseAnswer;
  checkParsePolicySet(policies: PolicySet): CheckParseAnswer;
  /** The hot path: a decision against a preparsed policy set. */
  statefulIsAuthorized(call: StatefulAuthorizationCall): AuthorizationAnswer;
  /** Decisions with unknown call-time inputs, for permission sets. */
  isAuthorizedPartial(call: PartialAuthorizationCall): PartialAuthorizationAnswer;
  /** One-off decisions, for traces. */
  isAuthorized(call: AuthorizationCall): AuthorizationAnswer;
}

/** `@cedar-policy/cedar-wasm` as shipped. */
export const cedarWasmEngine: CedarEngine = {
  preparseSchema,
  preparsePolicySet,
  checkParseEntities,
  checkParsePolicySet,
  statefulIsAuthorized,
  isAuthorizedPartial,
  isAuthorized,
};

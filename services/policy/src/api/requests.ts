/**
 * Checks of the policy service's gRPC request fields, on top of kit's common ones (resource
 * names, ids, texts, descriptors): every problem of a request is reported at once.
 */
import { isIP } from 'node:net';
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { Principal as WirePrincipal } from '@tollgate/contracts/common/v1';
import { isOperationName } from '@tollgate/core';
import type { Operation, Principal } from '@tollgate/core';
import { RequestProblems, requestChecker, shown } from '@tollgate/kit';
import type { CallContext } from '@tollgate/policy';

const DECLARATION_NAME = /^[a-z][a-z0-9_-]{2,62}$/;
const TOKEN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const MAX_USER = 200;
/** Context attributes a decision request may carry, and their meaning. */
const CONTEXT_ATTRIBUTES = ['limit'];

/** The problems of one policy request. */
export class PolicyRequestProblems extends RequestProblems {
  /** An optional tenant (empty = the caller's); a different one is refused later as TENANT_MISMATCH. */
  tenant(path: string, value: string): string | undefined {
    if (value === '') return undefined;
    if (!TOKEN_NAME.test(value)) this.add(path, 'a tenant name', shown(value));
    return value;
  }

  /** An optional resource filter (empty = every resource). */
  resourceFilter(path: string, value: string): string {
    return value === '' ? value : this.resourceName(path, value);
  }

  /** The name of an Agent or Policy. */
  declarationName(path: string, value: string): string {
    if (value === '') this.add(path, 'a name such as support-read-orders', 'nothing', 'required');
    else if (!DECLARATION_NAME.test(value))
      this.add(path, 'a name matching [a-z][a-z0-9_-]{2,62}', shown(value));
    return value;
  }

  operation(path: string, value: string): Operation {
    if (!isOperationName(value))
      this.add(
        path,
        'an operation name such as search ([a-z][a-z0-9_]*)',
        value === '' ? 'nothing' : shown(value),
      );
    return value;
  }

  approvalId(path: string, value: string): string {
    return this.uuid(path, value, 'approval');
  }

  /**
   * The principal a decision is about: the caller when absent; otherwise one of the caller's
   * tenant (a different tenant is refused as TENANT_MISMATCH), environment defaulting to the
   * caller's. Roles are ignored: the bundle says which roles an agent holds.
   */
  principal(
    path: string,
    value: WirePrincipal | undefined,
    caller: Principal,
  ): Principal & { environment: string } {
    if (value === undefined) {
      const { tenant, agent, environment, user } = caller;
      return { tenant, agent, environment, ...(user ? { user } : {}) };
    }
    const tenant = this.tenant(`${path}.tenant`, value.tenant) ?? caller.tenant;
    if (value.agent === '') this.add(`${path}.agent`, 'an agent name', 'nothing', 'required');
    else if (!TOKEN_NAME.test(value.agent))
      this.add(`${path}.agent`, 'an agent name', shown(value.agent));
    const environment = value.environment === '' ? caller.environment : value.environment;
    if (!TOKEN_NAME.test(environment))
      this.add(`${path}.environment`, 'an environment name', shown(environment));
    this.text(`${path}.user`, value.user, MAX_USER);
    return { tenant, agent: value.agent, environment, ...(value.user ? { user: value.user } : {}) };
  }

  /** Call context: caller IP, time, and the attributes of `context` (only `limit`). */
  callContext(
    sourceIp: string,
    time: Timestamp | undefined,
    context: JsonObject | undefined,
  ): CallContext {
    const out: CallContext = {};
    if (sourceIp !== '') {
      if (isIP(sourceIp) === 0) this.add('source_ip', 'an IPv4 or IPv6 address', shown(sourceIp));
      else out.sourceIp = sourceIp;
    }
    if (time !== undefined) {
      const at = timestampDate(time);
      if (Number.isNaN(at.getTime())) this.add('time', 'a valid timestamp', 'an invalid one');
      else out.now = at;
    }
    for (const [key, value] of Object.entries(context ?? {})) {
      if (!CONTEXT_ATTRIBUTES.includes(key)) {
        this.add(
          `context.${key}`,
          `one of the attributes ${CONTEXT_ATTRIBUTES.join(', ')}`,
          shown(key),
          `unknown attribute (allowed: ${CONTEXT_ATTRIBUTES.join(', ')})`,
        );
      } else if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
        this.add(`context.${key}`, 'a whole number ≥ 1', JSON.stringify(value));
      } else {
        out.limit = value;
      }
    }
    return out;
  }
}

/** Checks one request: `checkRequest(p => …)` returns what the callback returns, or throws. */
export const checkRequest = requestChecker(() => new PolicyRequestProblems());

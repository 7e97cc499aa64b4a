import { toJson } from '@bufbuild/protobuf';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { NatsConnection } from '@nats-io/transport-node';
import { createClient } from '@tollgate/contracts';
import type { CallOptions, RpcClient } from '@tollgate/contracts';
import { AuditService } from '@tollgate/contracts/audit/v1';
import { MemoryService } from '@tollgate/contracts/memory/v1';
import { PolicyService } from '@tollgate/contracts/policy/v1';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import { SynthesizerService } from '@tollgate/contracts/synthesizer/v1';
import { actingRole } from '../auth/operator.js';
import type { Capability } from '../auth/operator.js';
import type { PrincipalTokens } from '../auth/principals.js';
import type { Session } from '../auth/sessions.js';
import { forbidden } from '../http/problem.js';

/** Where the services the console talks to listen. */
export interface ServiceAddresses {
  registry: string;
  synthesizer: string;
  policy: string;
  memory: string;
  audit: string;
}

/** How long one service call may take, ms. */
const DEADLINE_MS = 20_000;

/**
 * The console's side of the control plane: one gRPC client per service, the NATS connection
 * (tool calls, the event feed), and the principal tokens every call carries.
 */
export class Backend {
  readonly registry: RpcClient<typeof RegistryService>;
  readonly synthesizer: RpcClient<typeof SynthesizerService>;
  readonly policy: RpcClient<typeof PolicyService>;
  readonly memory: RpcClient<typeof MemoryService>;
  readonly audit: RpcClient<typeof AuditService>;
  readonly tokens: PrincipalTokens;
  readonly nc: NatsConnection;

  constructor(deps: { addresses: ServiceAddresses; tokens: PrincipalTokens; nc: NatsConnection }) {
    const options = { defaultDeadlineMs: DEADLINE_MS };
    this.registry = createClient(RegistryService, deps.addresses.registry, options);
    this.synthesizer = createClient(SynthesizerService, deps.addresses.synthesizer, options);
    this.policy = createClient(PolicyService, deps.addresses.policy, options);
    this.memory = createClient(MemoryService, deps.addresses.memory, options);
    this.audit = createClient(AuditService, deps.addresses.audit, options);
    this.tokens = deps.tokens;
    this.nc = deps.nc;
  }

  /** Call options that authenticate as the console agent the capability acts through. */
  async as(
    session: Session,
    capability: Capability,
    tenant = session.tenant,
  ): Promise<CallOptions> {
    const role = actingRole(session.operator, capability);
    if (role === undefined) throw forbidden(`"${session.operator.user}" may not ${capability}.`);
    if (!session.operator.tenants.includes(tenant))
      throw forbidden(`Tenant "${tenant}" is not yours.`);
    const token = await this.tokens.forRole(session, role, tenant);
    return { metadata: { authorization: `Bearer ${token}` } };
  }

  close(): void {
    for (const client of [this.registry, this.synthesizer, this.policy, this.memory, this.audit])
      client.close();
  }
}

/** A message as the page reads it: proto3 JSON, defaults included, enums by name. */
export function json<S extends DescMessage>(schema: S, message: MessageShape<S>): unknown {
  return toJson(schema, message, { alwaysEmitImplicit: true });
}

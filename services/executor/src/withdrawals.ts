/**
 * Operations a connector withdraws at run time — the live system no longer matches what a
 * resource version pinned — are recorded in the withdrawals bucket (so a synthesizer started
 * later still offers them to nobody) and announced as `tool.withdrawn` with the version current
 * here, so the synthesizer stops offering them at once, the MCP front end tells its clients,
 * and audit records it. The connector refuses the calls itself; this only tells everyone else.
 */
import { canonicalHash } from '@tollgate/core';
import type { ConnectorRegistry, OperationWithdrawal } from '@tollgate/core';
import {
  EventTypes,
  derivedEventId,
  envelope,
  publishEnvelope,
  withdrawalKey,
} from '@tollgate/kit';
import type { EventPublisher, KV, Logger, ResourceCatalog } from '@tollgate/kit';

export interface WithdrawalDeps {
  connectors: ConnectorRegistry;
  resources: ResourceCatalog;
  events: EventPublisher;
  /** The withdrawals bucket. */
  store: KV;
  logger: Logger;
}

/** What the withdrawals bucket holds per operation (JSON). */
export interface WithdrawalRecord {
  resourceVersion: number;
  parts: string[];
  at: string;
}

/** Starts announcing; returns a function that stops. */
export function announceWithdrawals(deps: WithdrawalDeps): () => void {
  const withdrawing = deps.connectors.list().filter((c) => c.onWithdrawal !== undefined);
  for (const connector of withdrawing) {
    connector.onWithdrawal?.((withdrawal) => void announce(deps, withdrawal));
  }
  return () => {
    for (const connector of withdrawing) connector.onWithdrawal?.(undefined);
  };
}

async function announce(deps: WithdrawalDeps, w: OperationWithdrawal): Promise<void> {
  const current = deps.resources.get(w, w.resource);
  // A session of an older spec (still open, or idle) may notice the change after the operator
  // confirmed a new version that pins the tool again: that version is not withdrawn.
  if (current === undefined || canonicalHash(current.resource.spec) !== w.specHash) {
    deps.logger.info(
      { resource: w.resource, operation: w.operation },
      'withdrawal of a version that is no longer current; nothing to withdraw',
    );
    return;
  }
  const record: WithdrawalRecord = {
    resourceVersion: current.version,
    parts: w.changes.map((c) => c.part),
    at: new Date().toISOString(),
  };
  try {
    await deps.store.put(
      withdrawalKey(w.tenant, w.environment, w.resource, w.operation),
      JSON.stringify(record),
    );
  } catch (err) {
    deps.logger.error(
      { resource: w.resource, operation: w.operation, err: { message: (err as Error).message } },
      'withdrawal not recorded in the bucket; announced only',
    );
  }
  const event = envelope(
    EventTypes.toolWithdrawn,
    w.tenant,
    {
      case: 'toolWithdrawn',
      value: {
        tenant: w.tenant,
        environment: w.environment,
        resource: w.resource,
        resourceVersion: current.version,
        operation: w.operation,
        changes: w.changes.map((c) => ({ part: c.part, pinned: c.pinned, live: c.live })),
      },
    },
    // Every executor of the resource notices the same change: announced once.
    derivedEventId(
      'tool.withdrawn',
      w.tenant,
      w.environment,
      w.resource,
      String(current.version),
      w.operation,
      w.specHash,
    ),
  );
  try {
    await publishEnvelope(deps.events, event);
    deps.logger.warn(
      { resource: w.resource, operation: w.operation, parts: w.changes.map((c) => c.part) },
      'operation withdrawn: the live definition no longer matches its pin',
    );
  } catch (err) {
    deps.logger.error(
      { resource: w.resource, operation: w.operation, err: { message: (err as Error).message } },
      'tool.withdrawn not stored by JetStream',
    );
  }
}

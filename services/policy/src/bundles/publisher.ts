import { JetStreamApiCodes } from '@nats-io/jetstream';
import type { PublishedResource } from '@tollgate/core';
import { bundleText, encodeBundle } from '@tollgate/policy';
import type { PolicyBundle, PolicyProblem } from '@tollgate/policy';
import type { EventPublisher, KV, Logger } from '@tollgate/kit';
import { announceBundle } from '../events.js';
import type { DeclarationChange } from '../events.js';
import type { BundleLedger } from '../store/bundle-ledger.js';
import type { DeclarationStore } from '../store/declarations.js';
import { withVersion } from './compile.js';
import type { TenantCompiler } from './compile.js';
import type { TenantDeciders } from './deciders.js';

/** The bundle a tenant holds after a publication. */
export interface PublishedBundle {
  tenant: string;
  version: number;
  hash: string;
  /** False when the content was already published (nothing new was written). */
  changed: boolean;
}

/** The tenant's declarations no longer compile (e.g. two changes raced past Apply's check). */
export class BundleCompileError extends Error {
  readonly problems: PolicyProblem[];
  constructor(tenant: string, problems: PolicyProblem[]) {
    super(
      `policy bundle of tenant "${tenant}" does not compile: ${problems
        .slice(0, 3)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; ')}`,
    );
    this.name = 'BundleCompileError';
    this.problems = problems;
  }
}

export interface BundlePublisherDeps {
  agents: DeclarationStore<'Agent'>;
  policies: DeclarationStore<'Policy'>;
  ledger: BundleLedger;
  resources: { ofTenant(tenant: string): PublishedResource[] };
  compiler: TenantCompiler;
  kv: KV;
  events: EventPublisher;
  /** Loaded with each bundle right after it is written (ahead of the KV echo). */
  deciders?: TenantDeciders;
  logger: Logger;
  clock?: () => Date;
}

const MAX_ATTEMPTS = 10;

/**
 * Compiles a tenant's current agents, policies and resources into its bundle and projects it
 * to KV (key `<tenant>`), then announces `policy.changed`. A new version is claimed in the
 * ledger only when the content changed; the KV entry is written with a compare-and-set and never
 * replaced by an older version, so concurrent publishers (several instances, a reconcile)
 * converge on the newest bundle.
 */
export class BundlePublisher {
  readonly #deps: BundlePublisherDeps;
  readonly #clock: () => Date;

  constructor(deps: BundlePublisherDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? (() => new Date());
  }

  async publish(tenant: string, changes: DeclarationChange[] = []): Promise<PublishedBundle> {
    const { ledger, agents, policies, resources, logger } = this.#deps;
    // The ledger's head is enough to start from; a lost race or an unchanged bundle is
    // confirmed against its newest row (a head left behind by a crash must not hide one).
    let probed = false;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const [latest, agentRecords, policyRecords] = await Promise.all([
        probed ? ledger.latest(tenant) : ledger.head(tenant),
        agents.liveIn(tenant),
        policies.liveIn(tenant),
      ]);
      const compiled = this.#deps.compiler.compile({
        tenant,
        version: (latest?.version ?? 0) + 1,
        agents: agentRecords,
        policies: policyRecords,
        resources: resources.ofTenant(tenant),
      });
      if (compiled.excluded.length > 0)
        logger.warn({ tenant, excluded: compiled.excluded }, 'resources left out of the bundle');
      if (!compiled.ok) throw new BundleCompileError(tenant, compiled.problems);
      if (latest !== undefined && latest.contentHash === compiled.contentHash) {
        if (!probed) {
          probed = true;
          continue;
        }
        const current = withVersion(compiled.bundle, latest.version);
        await this.#project(current);
        return { tenant, version: current.version, hash: current.hash, changed: false };
      }
      const bundle = compiled.bundle;
      const entry = {
        tenant,
        version: bundle.version,
        hash: bundle.hash,
        contentHash: compiled.contentHash,
        createdAt: this.#clock(),
      };
      if (!(await ledger.claim(entry))) {
        probed = true;
        continue;
      }
      await Promise.all([ledger.recordHead(entry), this.#project(bundle)]);
      this.#deps.deciders?.offer(bundle);
      await announceBundle(this.#deps.events, bundle, changes);
      logger.info({ tenant, version: bundle.version, changes: changes.length }, 'bundle published');
      return { tenant, version: bundle.version, hash: bundle.hash, changed: true };
    }
    throw new Error(`bundle of tenant "${tenant}": versions kept moving; gave up`);
  }

  /** Writes `bundle` to KV unless the entry already holds it or a newer version. */
  async #project(bundle: PolicyBundle): Promise<void> {
    const { kv } = this.#deps;
    const value = encodeBundle(bundle);
    for (let attempt = 1; ; attempt++) {
      const entry = await kv.get(bundle.tenant);
      const live = entry !== null && entry.operation === 'PUT';
      const held = live ? versionIn(entry.value) : undefined;
      if (held !== undefined && held >= bundle.version) return;
      try {
        await kv.put(bundle.tenant, value, { previousSeq: entry?.revision ?? 0 });
        return;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }
}

/** The version of a bundle held in KV; undefined when the value is not a readable bundle. */
function versionIn(value: Uint8Array): number | undefined {
  try {
    const version = (JSON.parse(bundleText(value)) as { version?: unknown }).version;
    return Number.isSafeInteger(version) ? (version as number) : undefined;
  } catch {
    return undefined;
  }
}

function isWrongLastSequence(err: unknown): boolean {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return (
    code === JetStreamApiCodes.StreamWrongLastSequence ||
    code === JetStreamApiCodes.StreamWrongLastSequenceUnknown
  );
}

import { JetStreamApiCodes } from '@nats-io/jetstream';
import type { PublishedResource } from '@tollgate/core';
import { bundleText, encodeBundle } from '@tollgate/policy';
import { parsePolicyBundleKey, policyBundleKey } from '@tollgate/kit';
import type { PolicyBundle, PolicyProblem } from '@tollgate/policy';
import type { EventPublisher, KV, Logger } from '@tollgate/kit';
import { announceBundle } from '../events.js';
import type { DeclarationChange } from '../events.js';
import type { BundleLedger } from '../store/bundle-ledger.js';
import type { DeclarationStore } from '../store/declarations.js';
import { atVersion } from './compile.js';
import type { TenantBundle, TenantCompiler } from './compile.js';
import type { TenantDeciders } from './deciders.js';

/** The bundles a tenant holds after a publication. */
export interface PublishedBundle {
  tenant: string;
  version: number;
  /** Hash of the tenant's bundle without resources (the one `policy.changed` names). */
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
 * Compiles a tenant's current agents, policies and resources into its bundles and projects them
 * to KV (key `<tenant>` for the one without resources, `<tenant>.<environment>` for each
 * environment's; an environment left without resources loses its key), then announces
 * `policy.changed`. All bundles of a tenant share one version, claimed in the ledger only when
 * the content of any changed; each KV entry is written with a compare-and-set and never replaced
 * by an older version, so concurrent publishers (several instances, a reconcile) converge on the
 * newest bundles.
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
        logger.warn(
          { tenant, excluded: compiled.excluded },
          'resources left out of their environments’ bundles',
        );
      if (!compiled.ok) throw new BundleCompileError(tenant, compiled.problems);
      if (latest !== undefined && latest.contentHash === compiled.contentHash) {
        if (!probed) {
          probed = true;
          continue;
        }
        const current = atVersion(compiled.bundles, latest.version);
        await this.#projectAll(tenant, current);
        return { tenant, version: latest.version, hash: baseHash(current), changed: false };
      }
      const bundles = compiled.bundles;
      const version = (latest?.version ?? 0) + 1;
      const hash = baseHash(bundles);
      const entry = {
        tenant,
        version,
        hash,
        contentHash: compiled.contentHash,
        createdAt: this.#clock(),
      };
      if (!(await ledger.claim(entry))) {
        probed = true;
        continue;
      }
      await Promise.all([ledger.recordHead(entry), this.#projectAll(tenant, bundles)]);
      for (const b of bundles) this.#deps.deciders?.offer(b.bundle, b.environment);
      await announceBundle(this.#deps.events, { tenant, version, hash }, changes);
      logger.info(
        { tenant, version, environments: bundles.length - 1, changes: changes.length },
        'bundles published',
      );
      return { tenant, version, hash, changed: true };
    }
    throw new Error(`bundle of tenant "${tenant}": versions kept moving; gave up`);
  }

  /**
   * Writes each bundle to its key, then removes the keys of environments the tenant no longer
   * has resources in (a bundle left there would keep answering for resources that are gone).
   */
  async #projectAll(tenant: string, bundles: TenantBundle[]): Promise<void> {
    await Promise.all(
      bundles.map((b) => this.#project(policyBundleKey(tenant, b.environment), b.bundle)),
    );
    const version = bundles[0]?.bundle.version ?? 0;
    const current = new Set(bundles.map((b) => b.environment));
    for (const environment of await this.#environmentsInKv(tenant))
      if (!current.has(environment))
        await this.#retire(policyBundleKey(tenant, environment), version);
  }

  /**
   * The environments the tenant has bundles of: as the deciders' watch of the bucket saw them
   * (no round trip; one another instance wrote a moment ago is retired by a later pass), else
   * listed from KV.
   */
  async #environmentsInKv(tenant: string): Promise<string[]> {
    if (this.#deps.deciders !== undefined) return this.#deps.deciders.environmentsOf(tenant);
    const environments: string[] = [];
    for await (const key of await this.#deps.kv.keys(`${policyBundleKey(tenant)}.*`)) {
      const environment = parsePolicyBundleKey(key)?.environment;
      if (environment !== undefined) environments.push(environment);
    }
    return environments;
  }

  /** Writes `bundle` under `key` unless the entry already holds it or a newer version. */
  async #project(key: string, bundle: PolicyBundle): Promise<void> {
    const { kv } = this.#deps;
    const value = encodeBundle(bundle);
    for (let attempt = 1; ; attempt++) {
      const entry = await kv.get(key);
      const live = entry !== null && entry.operation === 'PUT';
      const held = live ? versionIn(entry.value) : undefined;
      if (held !== undefined && held >= bundle.version) return;
      try {
        await kv.put(key, value, { previousSeq: entry?.revision ?? 0 });
        return;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /** Deletes the bundle under `key` unless it is of `version` or newer (a newer publication's). */
  async #retire(key: string, version: number): Promise<void> {
    const { kv } = this.#deps;
    for (let attempt = 1; ; attempt++) {
      const entry = await kv.get(key);
      if (entry === null || entry.operation !== 'PUT') return;
      const held = versionIn(entry.value);
      if (held !== undefined && held >= version) return;
      try {
        await kv.delete(key, { previousSeq: entry.revision });
        return;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }
}

/** Hash of the tenant's bundle without resources, which always comes first. */
function baseHash(bundles: TenantBundle[]): string {
  return bundles[0]?.bundle.hash ?? '';
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

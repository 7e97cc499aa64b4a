import { metrics } from '@opentelemetry/api';
import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import type { AuditDocument } from '../record.js';
import { CALL_EVENT_TYPES, callOutcome } from '../outcome.js';

/**
 * The statistics `Stats` computes from stored records, also kept as OpenTelemetry metrics
 * (meter `tollgate.audit`), updated as records are stored. Telemetry decides whether they are
 * exported.
 */
export class IngestMetrics {
  readonly #calls: Counter;
  readonly #latency: Histogram;
  readonly #denials: Counter;
  readonly #argumentFailures: Counter;
  readonly #idempotencyConflicts: Counter;
  readonly #truncations: Counter;
  readonly #stored: Counter;
  readonly #duplicates: Counter;
  readonly #deadLetters: Counter;
  readonly #delay: Histogram;

  constructor(meter: Meter = metrics.getMeter('tollgate.audit')) {
    this.#calls = meter.createCounter('tollgate.audit.calls', {
      description: 'Calls recorded (call.completed and call.denied)',
    });
    this.#latency = meter.createHistogram('tollgate.audit.call.latency', {
      description: 'Latency of completed calls',
      unit: 'ms',
    });
    this.#denials = meter.createCounter('tollgate.audit.call.denials', {
      description: 'Calls refused by authentication or policy',
    });
    this.#argumentFailures = meter.createCounter('tollgate.audit.call.argument_failures', {
      description: 'Calls refused for invalid arguments',
    });
    this.#idempotencyConflicts = meter.createCounter('tollgate.audit.call.idempotency_conflicts', {
      description: 'Writes refused for reusing an idempotency key with other arguments',
    });
    this.#truncations = meter.createCounter('tollgate.audit.call.truncations', {
      description: 'Calls whose result was cut by a row or byte cap',
    });
    this.#stored = meter.createCounter('tollgate.audit.records.stored', {
      description: 'Audit records written',
    });
    this.#duplicates = meter.createCounter('tollgate.audit.records.duplicates', {
      description: 'Events received again and stored once',
    });
    this.#deadLetters = meter.createCounter('tollgate.audit.dead_letters', {
      description: 'Events that could not be recorded',
    });
    this.#delay = meter.createHistogram('tollgate.audit.ingest.delay', {
      description: 'From the event occurring to its record being stored',
      unit: 'ms',
    });
  }

  recordStored(doc: AuditDocument): void {
    this.#stored.add(1, { type: doc.type });
    this.#delay.record(Math.max(0, doc.recorded_at.getTime() - doc.occurred_at.getTime()));
    if (!CALL_EVENT_TYPES.includes(doc.type)) return;
    const attributes = { tenant: doc.tenant, tool: doc.tool, agent: doc.agent };
    const outcome = callOutcome(doc);
    this.#calls.add(1, { ...attributes, status: doc.status || 'denied' });
    if (outcome.denied) this.#denials.add(1, attributes);
    if (outcome.latencyMs !== undefined) this.#latency.record(outcome.latencyMs, attributes);
    if (outcome.argumentFailure) this.#argumentFailures.add(1, attributes);
    if (outcome.idempotencyConflict) this.#idempotencyConflicts.add(1, attributes);
    if (outcome.truncated) this.#truncations.add(1, attributes);
  }

  duplicates(count: number): void {
    if (count > 0) this.#duplicates.add(count);
  }

  deadLettered(): void {
    this.#deadLetters.add(1);
  }
}

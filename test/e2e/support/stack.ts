/**
 * The real local stack, brought up through `tollgate up` (idempotent: running, healthy services
 * are reused). A test file stops the services only when it was the one that started them, and
 * never stops the shared infrastructure.
 */
import { tollgate, tollgateJson } from './cli.js';

interface StatusDoc {
  healthy: boolean;
  services: Array<{ name: string; state: string; action?: string }>;
}

/**
 * Brings the stack up with the scenario's settings (`up` restarts services started with other
 * ones); resolves whether this call started services that were not running before.
 */
export async function bringUp(): Promise<{ startedHere: boolean }> {
  const up = await tollgateJson<StatusDoc>(['up'], {
    timeoutMs: 900_000,
  });
  if (!up.healthy)
    throw new Error(`tollgate up reported an unhealthy stack: ${JSON.stringify(up)}`);
  return { startedHere: up.services.some((s) => s.action === 'started') };
}

/** Stops the services if this file started them; the infrastructure keeps running. */
export async function bringDown(started: { startedHere: boolean } | undefined): Promise<void> {
  if (!started?.startedHere) return;
  const down = await tollgate(['down', '--keep-infra'], { timeoutMs: 120_000 });
  if (down.code !== 0) throw new Error(`tollgate down --keep-infra failed: ${down.stderr}`);
}

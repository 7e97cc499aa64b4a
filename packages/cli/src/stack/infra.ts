import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../errors.js';

/** One infrastructure server as `deploy/local/status.sh` reports it. */
export interface InfraServer {
  name: string;
  state: 'running' | 'stopped';
  pid: number | undefined;
  address: string;
  healthy: boolean;
}

/** What running a `deploy/local` script produced. */
export interface ScriptRun {
  code: number;
  lines: string[];
}

/**
 * Runs `bash deploy/local/<script>` in the checkout, appending its output to `log` and handing
 * every line to `onLine` as it comes.
 */
export async function runInfraScript(
  checkout: string | undefined,
  script: 'up.sh' | 'down.sh' | 'status.sh',
  options: { env: NodeJS.ProcessEnv; log?: string; onLine?: (line: string) => void },
): Promise<ScriptRun> {
  if (checkout === undefined) {
    throw new CliError(
      'NO_CHECKOUT',
      'the local infrastructure scripts (deploy/local) are not here: run tollgate from a Tollgate checkout',
    );
  }
  if (options.log) await mkdir(join(options.log, '..'), { recursive: true });
  const sink = options.log ? createWriteStream(options.log, { flags: 'a' }) : undefined;
  const lines: string[] = [];
  const child = spawn('bash', [join(checkout, 'deploy', 'local', script)], {
    cwd: checkout,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (stream: NodeJS.ReadableStream) => {
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      sink?.write(chunk);
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        lines.push(line);
        options.onLine?.(line);
      }
    });
    stream.on('end', () => {
      if (pending !== '') lines.push(pending);
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exit) => resolve(exit ?? 1));
  });
  await new Promise<void>((resolve) => (sink ? sink.end(resolve) : resolve()));
  return { code, lines };
}

const STATUS_LINE = /^\[infra\]\s+(\S+)\s+(running|stopped)\s+pid=(\S+)\s+(\S+)\s+(\S+)\s*$/;

/** Parses `status.sh` output: one server per matching line; other lines are ignored. */
export function parseInfraStatus(lines: readonly string[]): InfraServer[] {
  return lines.flatMap((line) => {
    const match = STATUS_LINE.exec(line.trim());
    if (!match) return [];
    const [, name, state, pid, address, health] = match as unknown as string[];
    const pidNumber = Number(pid);
    return [
      {
        name: name!,
        state: state as InfraServer['state'],
        pid: Number.isInteger(pidNumber) && pidNumber > 0 ? pidNumber : undefined,
        address: address!,
        healthy: health === 'healthy',
      },
    ];
  });
}

/** The line without the `[infra] ` prefix, for progress display. */
export function infraMessage(line: string): string {
  return line.replace(/^\[infra\]\s*/, '').trim();
}

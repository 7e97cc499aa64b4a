import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A service started as a real child process, with its JSON log lines collected. */
export interface RunningService {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  stderr: string[];
  exited: Promise<number | null>;
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
}

export function startService(name: string, env: Record<string, string> = {}): RunningService {
  const child = spawn(process.execPath, [`services/${name}/dist/main.js`], {
    cwd: repoRoot,
    // Services a test starts reach the local data servers on loopback, which the default
    // egress rules (public addresses only) refuse; tests of egress rules pass their own.
    env: {
      ...process.env,
      TOLLGATE_LOG_LEVEL: 'info',
      TOLLGATE_EGRESS_RULES: 'unrestricted',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ raw: line });
      }
      for (const w of waiters) w();
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString());
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    child,
    lines,
    stderr,
    exited,
    waitForLog(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(predicate);
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching log line within ${timeoutMs} ms; got: ${JSON.stringify(lines).slice(0, 2000)} ${stderr.join('')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

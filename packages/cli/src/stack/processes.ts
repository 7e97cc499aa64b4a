import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What `up` remembers about a service it started (`run/<name>.json`, next to `<name>.pid`). */
export interface ProcessRecord {
  pid: number;
  /** gRPC address it was told to listen on. */
  address: string;
  /** Script it runs (`services/<name>/dist/main.js`), to tell it from a reused pid. */
  entry: string;
  startedAt: string;
  /** Digest per `TOLLGATE_*` variable it was started with (values are never stored). */
  settings: Record<string, string>;
}

/** Files of one managed process under `.tollgate/run/`. */
export function processFiles(run: string, name: string) {
  return {
    pid: join(run, `${name}.pid`),
    record: join(run, `${name}.json`),
    log: join(run, `${name}.log`),
  };
}

export async function readRecord(run: string, name: string): Promise<ProcessRecord | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(processFiles(run, name).record, 'utf8'));
  } catch {
    return undefined;
  }
  const r = parsed as Partial<ProcessRecord> | null;
  if (
    typeof r?.pid !== 'number' ||
    !Number.isInteger(r.pid) ||
    r.pid <= 0 ||
    typeof r.address !== 'string' ||
    typeof r.entry !== 'string' ||
    typeof r.startedAt !== 'string' ||
    typeof r.settings !== 'object' ||
    r.settings === null
  ) {
    return undefined;
  }
  return r as ProcessRecord;
}

export async function writeRecord(run: string, name: string, record: ProcessRecord): Promise<void> {
  const files = processFiles(run, name);
  await mkdir(run, { recursive: true });
  await writeFile(files.record, `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(files.pid, `${record.pid}\n`);
}

export async function forgetRecord(run: string, name: string): Promise<void> {
  const files = processFiles(run, name);
  await rm(files.record, { force: true });
  await rm(files.pid, { force: true });
}

/**
 * True when `pid` is a live (not zombie) process running `entry` — a pid reused by something
 * else after a crash does not count.
 */
export function isRunning(pid: number, entry: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.split('\0').some((arg) => arg === entry);
  } catch {
    // No /proc (not Linux): the signal check is all there is.
    return process.platform !== 'linux';
  }
}

/** Variables only the CLI reads; changing them does not call for restarting services. */
const CLI_ONLY = /^TOLLGATE_(TENANT|ENV|HOME|TOKEN|USER|LLM_[A-Z_]+)$/;

/** Digests of the `TOLLGATE_*` settings a service would be started with. */
export function settingsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (!name.startsWith('TOLLGATE_') || CLI_ONLY.test(name) || value === undefined) continue;
    out[name] = createHash('sha256').update(value).digest('hex').slice(0, 16);
  }
  return out;
}

/** Names of the settings that differ between two digests (added, removed or changed). */
export function changedSettings(
  before: Record<string, string>,
  after: Record<string, string>,
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}

/** A service started in the background, detached from the CLI, its output appended to a log. */
export function startDetached(
  entry: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; log: string },
): ChildProcess {
  const fd = openSync(options.log, 'a');
  try {
    const child = spawn(process.execPath, [entry], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.unref();
    return child;
  } finally {
    closeSync(fd);
  }
}

/**
 * Stops `pid` (running `entry`): SIGTERM, then SIGKILL when still alive after `graceMs`.
 * Resolves how it ended.
 */
export async function stopProcess(
  pid: number,
  entry: string,
  graceMs: number,
): Promise<'stopped' | 'killed' | 'not_running'> {
  if (!isRunning(pid, entry)) return 'not_running';
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isRunning(pid, entry)) return 'stopped';
    await sleep(100);
  }
  signal(pid, 'SIGKILL');
  for (let i = 0; i < 50 && isRunning(pid, entry); i += 1) await sleep(100);
  return 'killed';
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** The last `count` lines of a log file ('' when unreadable). */
export async function logTail(path: string, count: number): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.trimEnd().split('\n').slice(-count).join('\n');
  } catch {
    return '';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

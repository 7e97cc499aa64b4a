/**
 * The sandbox an stdio server runs in: bubblewrap (`bwrap`) with every namespace unshared
 * (its own PID, IPC, UTS and mount namespaces; network only when the resource declares hosts),
 * a cleared environment holding only the declared variables, the system libraries and the
 * declared paths mounted (read-only unless declared writable; `/etc`, `/home` and the rest of
 * the host are absent), a private `/tmp`, and `prlimit` capping address space and CPU time.
 * The process dies with its parent. Without bubblewrap on the machine a command is refused.
 */
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { TollgateError } from '@tollgate/core';
import type { McpCommand, McpSandbox } from '../kind/spec.js';

export const BWRAP = process.env.TOLLGATE_BWRAP ?? '/usr/bin/bwrap';
const PRLIMIT = '/usr/bin/prlimit';
const DEFAULT_MEMORY_MB = 4096;
const DEFAULT_CPU_SECONDS = 600;

/** The program and arguments that start `command` inside the sandbox. */
export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Whether the sandbox can run on this machine. */
export function sandboxAvailable(): boolean {
  return existsSync(BWRAP) && existsSync(PRLIMIT);
}

/** The bubblewrap invocation for `command` with the resolved environment `env`. */
export function sandboxed(
  command: McpCommand,
  sandbox: McpSandbox | undefined,
  env: Record<string, string>,
): SandboxedCommand {
  if (!sandboxAvailable()) {
    throw new TollgateError(
      'UPSTREAM_UNAVAILABLE',
      `The sandbox for stdio servers is not installed (${BWRAP} and ${PRLIMIT} are needed); the server was not started.`,
    );
  }
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  const network = (sandbox?.allowHosts ?? []).length > 0;
  if (network) args.push('--share-net');
  args.push('--clearenv');
  const environment: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: '/tmp', ...env };
  for (const [name, value] of Object.entries(environment)) args.push('--setenv', name, value);
  args.push('--ro-bind', '/usr', '/usr');
  for (const top of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) args.push(...systemDir(top));
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  if (network) {
    for (const file of ['/etc/resolv.conf', '/etc/hosts', '/etc/ssl', '/etc/ca-certificates']) {
      if (existsSync(file)) args.push('--ro-bind', file, file);
    }
  }
  const executableDir = dirname(command.executable);
  const reads = new Set(sandbox?.readPaths ?? []);
  if (!executableDir.startsWith('/usr/') && !executableDir.startsWith('/bin'))
    reads.add(executableDir);
  for (const path of reads) args.push('--ro-bind', path, path);
  for (const path of sandbox?.writePaths ?? []) args.push('--bind', path, path);
  args.push('--chdir', '/tmp', '--', PRLIMIT);
  const memory = (sandbox?.memoryMb ?? DEFAULT_MEMORY_MB) * 1024 * 1024;
  args.push(`--as=${memory}`, `--cpu=${sandbox?.cpuSeconds ?? DEFAULT_CPU_SECONDS}`, '--');
  args.push(command.executable, ...(command.args ?? []));
  return { command: BWRAP, args, env: {} };
}

/** A top-level system folder as the host has it: a symlink into /usr, or a read-only mount. */
function systemDir(path: string): string[] {
  if (!existsSync(path)) return [];
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(path), path];
  return ['--ro-bind', path, path];
}

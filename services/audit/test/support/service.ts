import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { AuditService } from '@tollgate/contracts/audit/v1';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys } from '@tollgate/core';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

/** The audit service as a real child process (`services/audit/dist/main.js`). */
export interface AuditProcess {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  /** gRPC address from the `ready` line. */
  grpc: string;
  exited: Promise<number | null>;
}

export async function startAuditProcess(env: Record<string, string>): Promise<AuditProcess> {
  const child = spawn(process.execPath, ['services/audit/dist/main.js'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      TOLLGATE_LOG_LEVEL: 'info',
      TOLLGATE_AUDIT_GRPC_ADDR: '127.0.0.1:0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buf = '';
  let onLine: () => void = () => {};
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
      onLine();
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`audit not ready within 60 s: ${JSON.stringify(lines)} ${stderr}`)),
      60_000,
    );
    onLine = () => {
      const hit = lines.find((l) => l.msg === 'ready');
      if (hit) {
        clearTimeout(timer);
        resolve(hit);
      }
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`audit exited with ${code}: ${JSON.stringify(lines)} ${stderr}`));
    });
  });
  return { child, lines, grpc: String(ready.grpc), exited };
}

/** A trusted-issuers file with a fresh issuer, and a way to mint tokens for principals. */
export async function testIssuer(): Promise<{
  file: string;
  keys: IssuerKeys;
  token(tenant: string, agent?: string): Promise<string>;
  dispose(): Promise<void>;
}> {
  const keys = await generateIssuerKeys('audit-test');
  const dir = await mkdtemp(join(tmpdir(), 'audit-issuer-'));
  const file = join(dir, 'issuer.json');
  await writeFile(file, JSON.stringify(keys));
  return {
    file,
    keys,
    dispose: () => rm(dir, { recursive: true, force: true }),
    token: (tenant, agent = 'auditor') =>
      issuePrincipalToken(keys, { tenant, agent, environment: 'prod' }),
  };
}

/** An audit client calling as `token`. */
export function auditClient(address: string, token: string): RpcClient<typeof AuditService> {
  return createClient(AuditService, address, {
    metadata: { authorization: `Bearer ${token}` },
    defaultDeadlineMs: 30_000,
  });
}

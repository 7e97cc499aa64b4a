import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkHealth } from '@tollgate/contracts';
import { startService } from '../support/process.js';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, r) => setTimeout(() => r(new Error(`not within ${ms} ms`)), ms)),
  ]);

describe('smoke - service skeletons', () => {
  it.each(['registry', 'synthesizer', 'policy', 'executor', 'memory', 'audit', 'auth-callout'])(
    'service - %s starts, serves gRPC health, logs JSON and stops cleanly on SIGTERM',
    async (name) => {
      const svc = startService(name, {
        [`TOLLGATE_${name.toUpperCase().replace('-', '_')}_GRPC_ADDR`]: '127.0.0.1:0',
      });
      const ready = await svc.waitForLog((l) => l.msg === 'ready');
      expect(ready).toMatchObject({ service: name, level: 'info' });
      const address = String(ready.grpc);
      expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
      // SERVING is 1 in grpc.health.v1.
      expect(await checkHealth(address)).toBe(1);
      svc.child.kill('SIGTERM');
      expect(await withTimeout(svc.exited, 15_000)).toBe(0);
      // gRPC stops first (no new requests), then the service's parts, NATS, Mongo and telemetry.
      const stopped = svc.lines.filter((l) => l.msg === 'stopped').map((l) => String(l.component));
      expect(stopped[0]).toBe('grpc');
      const usesMongo = ['registry', 'policy', 'memory', 'audit'].includes(name);
      expect(stopped).toEqual(
        expect.arrayContaining(['nats', 'telemetry', ...(usesMongo ? ['mongo'] : [])]),
      );
    },
  );

  it('service - malformed config exits 1 with one message listing every problem', async () => {
    const svc = startService('registry', {
      TOLLGATE_NATS_URL: 'http://wrong',
      TOLLGATE_LOG_LEVEL: 'chatty',
      TOLLGATE_MONGO_URL: 'not a url',
    });
    expect(await withTimeout(svc.exited, 10_000)).toBe(1);
    const out = JSON.parse(svc.stderr.join('').trim()) as { problems: string[]; msg: string };
    expect(out.msg).toContain('registry: invalid configuration');
    expect(out.problems).toEqual([
      'TOLLGATE_NATS_URL: expected a URL with scheme nats or tls, found "http://wrong"',
      'TOLLGATE_LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, found "chatty"',
      'TOLLGATE_MONGO_URL: expected a URL (mongodb, mongodb+srv), found "not a url"',
    ]);
  });

  it('service - unreachable NATS exits 1 naming the address', async () => {
    const svc = startService('executor', {
      TOLLGATE_NATS_URL: 'nats://127.0.0.1:1',
      TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:0',
    });
    expect(await withTimeout(svc.exited, 20_000)).toBe(1);
    const fatal = svc.lines.find((l) => l.level === 'fatal');
    expect(String(fatal?.msg)).toContain('cannot reach NATS at nats://127.0.0.1:1');
  });

  it('service - NATS credentials that are missing exit 1 naming the file', async () => {
    const svc = startService('executor', {
      TOLLGATE_NATS_CREDENTIALS_FILE: '/nonexistent/executor.nk',
      TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:0',
    });
    expect(await withTimeout(svc.exited, 20_000)).toBe(1);
    const fatal = svc.lines.find((l) => l.level === 'fatal');
    expect(String(fatal?.msg)).toContain('cannot read /nonexistent/executor.nk (ENOENT)');
  });

  it('service - a key the bus does not know is refused at connect, naming the credentials', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smoke-nkey-'));
    // A well-formed user seed that no bus has been told about.
    await writeFile(
      join(dir, 'stranger.nk'),
      'SUAHBDHEXFPU2CX6VOEDOR6KFPK2ZI5ANACLGYWXJKYQI6BM3PGDF3FG5U\n',
    );
    try {
      const svc = startService('executor', {
        TOLLGATE_NATS_CREDENTIALS_FILE: join(dir, 'stranger.nk'),
        TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:0',
      });
      expect(await withTimeout(svc.exited, 20_000)).toBe(1);
      const fatal = svc.lines.find((l) => l.level === 'fatal');
      expect(String(fatal?.msg)).toMatch(/authorization violation.*stranger\.nk/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('service - unreachable Mongo exits 1 naming the address', async () => {
    const svc = startService('audit', {
      TOLLGATE_MONGO_URL: 'mongodb://127.0.0.1:1/tollgate',
      TOLLGATE_AUDIT_GRPC_ADDR: '127.0.0.1:0',
    });
    expect(await withTimeout(svc.exited, 30_000)).toBe(1);
    const fatal = svc.lines.find((l) => l.level === 'fatal');
    expect(String(fatal?.msg)).toContain('cannot reach MongoDB at mongodb://127.0.0.1:1/tollgate');
  });

  it('service - a gRPC port already taken exits 1 with the variable to change', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const svc = startService('synthesizer', {
        TOLLGATE_SYNTHESIZER_GRPC_ADDR: `127.0.0.1:${port}`,
      });
      expect(await withTimeout(svc.exited, 20_000)).toBe(1);
      const fatal = svc.lines.find((l) => l.level === 'fatal');
      expect(String(fatal?.msg)).toContain(
        `cannot listen on 127.0.0.1:${port}: address already in use (set TOLLGATE_SYNTHESIZER_GRPC_ADDR)`,
      );
    } finally {
      blocker.close();
    }
  });
});

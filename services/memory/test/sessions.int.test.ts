import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import { MemoryItemKind, MemoryWrite } from '@tollgate/contracts/events/v1';
import { eventually, startMemory } from './harness.js';
import type { MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeAll(async () => {
  h = await startMemory({ maxSessionBytes: 4_096 });
});
afterAll(async () => {
  await h.close();
});

async function rpcError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (isRpcError(err)) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('sessions - snapshots', () => {
  it('sessions - every step bumps the version; a stale or premature expected version is a conflict', async () => {
    const bot = await h.client({ agent: 'bot', user: 'alice' });
    const first = await bot.putSession({
      sessionId: 'conv-1',
      state: { step: 1 },
      expectedVersion: 0,
    });
    expect(first.session).toMatchObject({
      version: 1,
      agent: 'bot',
      user: 'alice',
      state: { step: 1 },
    });
    expect(
      await rpcError(
        bot.putSession({ sessionId: 'conv-1', state: { step: 1 }, expectedVersion: 0 }),
      ),
    ).toMatchObject({
      code: RpcStatus.ABORTED,
      message: expect.stringContaining('is at version 1, not 0') as string,
    });
    await bot.putSession({ sessionId: 'conv-1', state: { step: 2 }, expectedVersion: 1 });
    expect(
      await rpcError(
        bot.putSession({ sessionId: 'conv-1', state: { step: 9 }, expectedVersion: 1 }),
      ),
    ).toMatchObject({
      code: RpcStatus.ABORTED,
    });
    const unconditional = await bot.putSession({ sessionId: 'conv-1', state: { step: 3 } });
    expect(unconditional.session?.version).toBe(3);
    expect((await bot.getSession({ sessionId: 'conv-1' })).session).toMatchObject({
      version: 3,
      state: { step: 3 },
    });
    await eventually(() =>
      h.written.find(
        (w) =>
          w.kind === MemoryItemKind.SESSION &&
          w.id === 'conv-1' &&
          w.version === 3 &&
          w.write === MemoryWrite.UPDATED,
      ),
    );
  });

  it('sessions - of concurrent writers naming the same version, exactly one wins', async () => {
    const bot = await h.client({ agent: 'bot', user: 'race' });
    await bot.putSession({ sessionId: 'race-1', state: { step: 0 }, expectedVersion: 0 });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        bot.putSession({ sessionId: 'race-1', state: { writer: i }, expectedVersion: 1 }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected')
        expect(isRpcError(r.reason) && r.reason.code).toBe(RpcStatus.ABORTED);
    }
    const { session } = await bot.getSession({ sessionId: 'race-1' });
    expect(session?.version).toBe(2);
    expect(session?.state).toEqual(
      won[0]!.status === 'fulfilled' ? won[0]!.value.session?.state : undefined,
    );
  });

  it('sessions - secret-looking values are redacted rather than refusing the step', async () => {
    const bot = await h.client({ agent: 'bot' });
    const { session, redactedPaths } = await bot.putSession({
      sessionId: 'conv-secret',
      state: {
        messages: [
          { role: 'user', content: 'use mongodb://admin:hunter2@db:27017 please' },
          { role: 'assistant', content: 'I will query es_orders.' },
        ],
        tool: { es_orders_search: { retries: 1, apiKey: 'abc123' } },
      },
    });
    expect(redactedPaths).toEqual(['/messages/0/content', '/tool/es_orders_search/apiKey']);
    expect(session?.state).toEqual({
      messages: [
        { role: 'user', content: '[redacted]' },
        { role: 'assistant', content: 'I will query es_orders.' },
      ],
      tool: { es_orders_search: { retries: 1, apiKey: '[redacted]' } },
    });
    const raw = await h.store.sessions.find({ sessionId: 'conv-secret' }).toArray();
    expect(JSON.stringify(raw)).not.toMatch(/hunter2|abc123/);
  });

  it('sessions - the same session id is a different session for another user, agent or tenant', async () => {
    const alice = await h.client({ agent: 'bot', user: 'alice' });
    await alice.putSession({ sessionId: 'shared-id', state: { owner: 'alice' } });
    for (const other of [
      { agent: 'bot', user: 'bob' },
      { agent: 'bot' },
      { agent: 'other_bot', user: 'alice' },
      { agent: 'bot', user: 'alice', tenant: `${h.tenant}-x` },
    ]) {
      const client = await h.client(other);
      expect(await rpcError(client.getSession({ sessionId: 'shared-id' }))).toMatchObject({
        code: RpcStatus.NOT_FOUND,
      });
      const { session } = await client.putSession({
        sessionId: 'shared-id',
        state: { owner: 'someone else' },
        expectedVersion: 0,
      });
      expect(session?.version).toBe(1);
    }
    expect((await alice.getSession({ sessionId: 'shared-id' })).session?.state).toEqual({
      owner: 'alice',
    });
  });

  it('sessions - bad input is refused and changes nothing', async () => {
    const bot = await h.client({ agent: 'bot' });
    expect(await rpcError(bot.putSession({ sessionId: 'bad id!', state: {} }))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [expect.objectContaining({ path: 'session_id' })],
    });
    expect(
      await rpcError(bot.putSession({ sessionId: 'big', state: { blob: 'x'.repeat(5_000) } })),
    ).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [expect.objectContaining({ path: 'state', expected: 'at most 4096 bytes of JSON' })],
    });
    expect(await rpcError(bot.getSession({ sessionId: 'big' }))).toMatchObject({
      code: RpcStatus.NOT_FOUND,
    });
  });

  it('sessions - an idle session expires (not found, then swept); resuming restarts its idle time', async () => {
    let now = Date.now();
    const idle = await startMemory({ sessionIdleMs: 60_000 }, () => new Date(now));
    try {
      const bot = await idle.client({ agent: 'bot', user: 'idle' });
      await bot.putSession({ sessionId: 'idle-1', state: { step: 1 } });
      now += 50_000;
      const resumed = await bot.resumeSession({ sessionId: 'idle-1' });
      expect(resumed.session).toMatchObject({
        version: 1,
        expiresAt: { seconds: BigInt(Math.floor((now + 60_000) / 1000)) },
      });
      now += 50_000;
      expect((await bot.getSession({ sessionId: 'idle-1' })).session?.version).toBe(1);
      await bot.putSession({ sessionId: 'idle-2', state: {} });
      now += 60_001;
      expect(await rpcError(bot.getSession({ sessionId: 'idle-1' }))).toMatchObject({
        code: RpcStatus.NOT_FOUND,
      });
      expect(await rpcError(bot.resumeSession({ sessionId: 'idle-1' }))).toMatchObject({
        code: RpcStatus.NOT_FOUND,
      });
      expect(
        await rpcError(
          bot.putSession({ sessionId: 'idle-1', state: { step: 2 }, expectedVersion: 1 }),
        ),
      ).toMatchObject({
        code: RpcStatus.ABORTED,
        message: expect.stringContaining('does not exist (or expired)') as string,
      });
      expect(await idle.store.sessions.countDocuments({ sessionId: 'idle-2' })).toBe(1);
      expect(await idle.memory.sessions.sweep()).toBe(1);
      expect(await idle.store.sessions.countDocuments({})).toBe(0);
      const fresh = await bot.putSession({
        sessionId: 'idle-1',
        state: { step: 1 },
        expectedVersion: 0,
      });
      expect(fresh.session?.version).toBe(1);
    } finally {
      await idle.close();
    }
  });
});

describe('sessions - resume after a killed agent', () => {
  const script = fileURLToPath(new URL('./fixtures/session-agent.mjs', import.meta.url));
  const cwd = fileURLToPath(new URL('..', import.meta.url));

  function runAgent(env: Record<string, string>): {
    child: ChildProcess;
    lines: string[];
    exited: Promise<number | null>;
  } {
    const child = spawn(process.execPath, [script], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts);
    });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    return { child, lines, exited };
  }

  it('sessions - a new process resumes from the last stored step with the right version', async () => {
    // The memory service keeps running; only the agent process dies, mid-run.
    const token = await h.token({ agent: 'worker', user: 'alice' });
    const env = { MEMORY_ADDR: h.address, MEMORY_TOKEN: token, SESSION_ID: 'long-task' };
    const first = runAgent(env);
    await eventually(
      () => (first.lines.filter((l) => l.startsWith('step')).length >= 5 ? true : undefined),
      30_000,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(first.lines[0]).toBe('fresh');
    const lastAcked = Math.max(
      ...first.lines.filter((l) => l.startsWith('step')).map((l) => Number(l.split(' ')[3])),
    );

    const second = runAgent({ ...env, MAX_STEPS: '3' });
    expect(await second.exited).toBe(0);
    const [resumedLine, ...steps] = second.lines;
    const match = /^resumed step (\d+) version (\d+)$/.exec(resumedLine ?? '');
    expect(match).not.toBeNull();
    const resumedStep = Number(match![1]);
    const resumedVersion = Number(match![2]);
    // The write in flight at the kill may or may not have landed; nothing acknowledged is lost.
    expect([lastAcked, lastAcked + 1]).toContain(resumedVersion);
    expect(resumedStep).toBe(resumedVersion);
    expect(steps).toEqual(
      [1, 2, 3].map((i) => `step ${resumedStep + i} version ${resumedVersion + i}`),
    );
    const reader = await h.client({ agent: 'worker', user: 'alice' });
    const { session } = await reader.getSession({ sessionId: 'long-task' });
    expect(session).toMatchObject({
      version: resumedVersion + 3,
      state: { step: resumedStep + 3 },
    });
  });
});

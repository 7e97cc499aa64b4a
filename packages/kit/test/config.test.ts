import { describe, expect, it } from 'vitest';
import { ConfigError, cfg, commonConfig, loadConfig } from '../src/index.js';

const spec = {
  ...commonConfig,
  port: cfg.port('TEST_PORT', 'gRPC port', 7061),
  apiToken: cfg.secret('TEST_TOKEN', 'upstream token'),
  mode: cfg.oneOf('TEST_MODE', 'mode', ['fast', 'safe'] as const, 'safe'),
};

describe('config', () => {
  it('config - defaults apply when variables are absent', () => {
    const c = loadConfig('svc', spec, { TEST_TOKEN: 'x' });
    expect(c).toMatchObject({
      natsUrl: 'nats://127.0.0.1:4222',
      port: 7061,
      mode: 'safe',
      logLevel: 'info',
    });
  });

  it('config - values are parsed into their types', () => {
    const c = loadConfig('svc', spec, { TEST_TOKEN: 'x', TEST_PORT: '7000', TEST_MODE: 'fast' });
    expect(c.port).toBe(7000);
    expect(c.mode).toBe('fast');
  });

  it('config - every problem is reported at once, secrets are not echoed', () => {
    let caught: unknown;
    try {
      loadConfig('svc', spec, {
        TOLLGATE_NATS_URL: 'http://nope',
        TEST_PORT: '70000',
        TEST_MODE: 'turbo',
        TOLLGATE_LOG_LEVEL: 'loud',
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems).toEqual([
      'TOLLGATE_NATS_URL: expected a URL with scheme nats or tls, found "http://nope"',
      'TOLLGATE_LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, found "loud"',
      'TEST_PORT: expected an integer between 0 and 65535, found "70000"',
      'TEST_TOKEN: required (upstream token)',
      'TEST_MODE: expected one of fast, safe, found "turbo"',
    ]);
    expect((caught as Error).message).toContain('svc: invalid configuration');
  });

  it('config - a non-numeric port is rejected', () => {
    expect(() => loadConfig('svc', spec, { TEST_TOKEN: 'x', TEST_PORT: '12ab' })).toThrow(
      'TEST_PORT: expected an integer between 0 and 65535, found "12ab"',
    );
  });

  it('config - TOLLGATE_NATS_URL takes every node of a cluster, comma-separated, each checked', () => {
    const nodes = 'nats://127.0.0.1:4222, nats://127.0.0.1:4232,nats://127.0.0.1:4242';
    expect(loadConfig('svc', spec, { TEST_TOKEN: 'x', TOLLGATE_NATS_URL: nodes }).natsUrl).toBe(
      'nats://127.0.0.1:4222,nats://127.0.0.1:4232,nats://127.0.0.1:4242',
    );
    expect(() =>
      loadConfig('svc', spec, {
        TEST_TOKEN: 'x',
        TOLLGATE_NATS_URL: 'nats://127.0.0.1:4222,http://127.0.0.1:4232',
      }),
    ).toThrow(
      'TOLLGATE_NATS_URL: URL 2 of 2: expected a URL with scheme nats or tls, found "nats://127.0.0.1:4222,http://127.0.0.1:4232"',
    );
    // An empty entry (a stray comma) is not a URL either.
    expect(() =>
      loadConfig('svc', spec, { TEST_TOKEN: 'x', TOLLGATE_NATS_URL: 'nats://127.0.0.1:4222,' }),
    ).toThrow('TOLLGATE_NATS_URL: URL 2 of 2: expected a URL (nats, tls)');
  });
});

import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { callerIp, metadataPath } from '../src/http/edge.js';

const request = (remote: string | undefined, forwarded?: string) =>
  ({
    socket: { remoteAddress: remote },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

describe('edge - caller address', () => {
  it('edge - the socket address, IPv4-mapped IPv6 unwrapped', () => {
    expect(callerIp(request('::ffff:10.1.2.3'), [])).toBe('10.1.2.3');
    expect(callerIp(request('2001:db8::1'), [])).toBe('2001:db8::1');
    expect(callerIp(request(undefined), [])).toBeUndefined();
  });

  it('edge - X-Forwarded-For is ignored unless the socket is a trusted proxy', () => {
    expect(callerIp(request('203.0.113.9', '10.0.0.1'), [])).toBe('203.0.113.9');
    expect(callerIp(request('203.0.113.9', '10.0.0.1'), ['198.51.100.1'])).toBe('203.0.113.9');
  });

  it('edge - behind trusted proxies the last untrusted hop is the caller (a forged first hop is skipped)', () => {
    const proxies = ['127.0.0.1', '10.0.0.2'];
    expect(callerIp(request('127.0.0.1', '198.51.100.7'), proxies)).toBe('198.51.100.7');
    expect(callerIp(request('127.0.0.1', '10.9.9.9, 198.51.100.7, 10.0.0.2'), proxies)).toBe(
      '198.51.100.7',
    );
    expect(callerIp(request('127.0.0.1', 'not-an-ip'), proxies)).toBe('127.0.0.1');
    expect(callerIp(request('127.0.0.1', '10.0.0.2'), proxies)).toBe('127.0.0.1');
  });

  it('edge - the protected resource metadata lives under the resource path (RFC 9728)', () => {
    expect(metadataPath(new URL('https://mcp.example.com/mcp'))).toBe(
      '/.well-known/oauth-protected-resource/mcp',
    );
    expect(metadataPath(new URL('https://mcp.example.com/'))).toBe(
      '/.well-known/oauth-protected-resource',
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  checkEgressAddress,
  checkEgressTarget,
  egressDestinations,
  egressGuard,
  egressTarget,
  parseEgressRules,
} from '../src/connector/egress.js';
import type { EgressRules, EgressTarget } from '../src/connector/egress.js';

const TEAM_A = { tenant: 'team-a', environment: 'prod' };
const TEAM_B = { tenant: 'team-b', environment: 'prod' };

const target = (url: string): EgressTarget => egressTarget(url) as EgressTarget;

/** Allowed for a literal, or by name and then for every address given. */
function reaches(rules: EgressRules, url: string, addresses: string[] = []): boolean {
  const t = target(url);
  const first = checkEgressTarget(rules, TEAM_A, t);
  if (first.allowed !== 'addresses') return first.allowed;
  return addresses.every((a) => checkEgressAddress(rules, TEAM_A, t, a).allowed === true);
}

describe('egress - parsing', () => {
  it('egress - reads entries per scope, destinations with ports and ranges', () => {
    const rules = parseEgressRules(
      'team-a/prod=es.internal:9200,10.0.0.0/8:5432-5433,[fd00::]/8,*.corp.example:443 ; */*=public:443',
    );
    expect(egressDestinations(rules, TEAM_A)).toEqual([
      'es.internal:9200',
      '10.0.0.0/8:5432-5433',
      '[fd00::]/8',
      '*.corp.example:443',
      'public:443',
    ]);
    expect(egressDestinations(rules, TEAM_B)).toEqual(['public:443']);
  });

  it.each([
    ['team-a=public', 'expected <tenant>/<environment>=<destination>'],
    ['Team/prod=public', 'the tenant and environment must be names or *'],
    ['*/*=public,,x.example', 'empty destination'],
    ['*/*=fd00::/8', 'write IPv6 addresses in brackets'],
    ['*/*=10.0.0.1/8', 'without host bits set'],
    ['*/*=10.0.0.0/33', 'without host bits set'],
    ['*/*=host.example:0', 'a port must be 1-65535'],
    ['*/*=host.example:90-80', 'a port must be 1-65535'],
    ['*/*=*.example', 'a wildcard names a domain of at least two labels'],
    ['*/*=http://host.example', 'expected public, a host name'],
  ])('egress - refuses %s', (text, message) => {
    expect(() => parseEgressRules(text)).toThrow(message);
  });

  it('egress - reports every problem at once', () => {
    expect(() => parseEgressRules('*/*=,x; nope')).toThrow(
      /\(empty\): empty destination.*; nope: expected <tenant>/,
    );
  });
});

describe('egress - what an attacker points a resource at', () => {
  const publicOnly = parseEgressRules('*/*=public');
  const listed = parseEgressRules(
    'team-a/prod=127.0.0.1:9200,es.internal:9200,10.1.0.0/16,169.254.169.254/32:80,public',
  );

  it.each([
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data', publicOnly, false],
    ['cloud metadata as IPv4-mapped IPv6', 'http://[::ffff:169.254.169.254]/', publicOnly, false],
    ['loopback as IPv4-mapped IPv6 (hex form)', 'http://[::ffff:7f00:1]:9200', publicOnly, false],
    ['loopback', 'http://127.0.0.1:8088', publicOnly, false],
    ['IPv6 loopback', 'http://[::1]:9200', publicOnly, false],
    ['a private address', 'tcp://10.0.0.5:5432', publicOnly, false],
    ['IPv6 unique local', 'http://[fd12::1]/', publicOnly, false],
    ['IPv6 link-local', 'http://[fe80::1]/', publicOnly, false],
    ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/', publicOnly, false],
    ['the unspecified address', 'http://0.0.0.0:9200', publicOnly, false],
    ['a public address', 'https://93.184.215.14/', publicOnly, true],
    ['the listed loopback port', 'http://127.0.0.1:9200', listed, true],
    ['another loopback port', 'http://127.0.0.1:8088', listed, false],
    ['loopback mapped, on the listed port', 'http://[::ffff:127.0.0.1]:9200', listed, true],
    ['the listed metadata address on its port', 'http://169.254.169.254/', listed, true],
    ['the listed metadata address on another port', 'http://169.254.169.254:8080/', listed, false],
  ])('egress - %s', (_what, url, rules, allowed) => {
    expect(reaches(rules, url)).toBe(allowed);
  });

  it('egress - a public name resolving to a private address is refused, without saying so', () => {
    const t = target('https://api.attacker.example/');
    expect(checkEgressTarget(publicOnly, TEAM_A, t)).toEqual({ allowed: 'addresses' });
    const verdict = checkEgressAddress(publicOnly, TEAM_A, t, '10.0.0.5');
    expect(verdict).toEqual({
      allowed: false,
      problem: 'its host does not resolve to addresses the egress rules of team-a/prod allow',
      expected: ['public'],
    });
    expect(
      reaches(publicOnly, 'https://api.attacker.example/', ['93.184.215.14', '127.0.0.1']),
    ).toBe(false);
    expect(reaches(publicOnly, 'https://api.attacker.example/', ['::ffff:10.0.0.1'])).toBe(false);
    expect(reaches(publicOnly, 'https://api.attacker.example/', ['93.184.215.14'])).toBe(true);
  });

  it('egress - a listed name may resolve privately, but never to link-local', () => {
    expect(reaches(listed, 'http://es.internal:9200', ['10.9.9.9'])).toBe(true);
    expect(reaches(listed, 'http://es.internal:9200', ['169.254.169.254'])).toBe(false);
    expect(reaches(listed, 'http://es.internal:9300', ['10.9.9.9'])).toBe(false);
  });

  it('egress - 0.0.0.0/0 is not a way to reach loopback, private or link-local', () => {
    const wide = parseEgressRules('*/*=0.0.0.0/0,[::]/0');
    expect(reaches(wide, 'http://93.184.215.14/')).toBe(true);
    for (const url of [
      'http://127.0.0.1/',
      'http://10.0.0.1/',
      'http://169.254.169.254/',
      'http://[::1]/',
    ])
      expect(reaches(wide, url)).toBe(false);
    expect(reaches(listed, 'http://10.1.2.3/')).toBe(true);
    expect(reaches(listed, 'http://10.2.0.1/')).toBe(false);
  });

  it('egress - rules of another tenant do not apply', () => {
    const rules = parseEgressRules('team-b/prod=127.0.0.1:9200');
    expect(checkEgressTarget(rules, TEAM_A, target('http://127.0.0.1:9200'))).toEqual({
      allowed: false,
      problem: 'it is a loopback address, which the egress rules of team-a/prod do not list',
      expected: [],
    });
    expect(checkEgressTarget(rules, TEAM_B, target('http://127.0.0.1:9200'))).toEqual({
      allowed: true,
    });
  });

  it('egress - the guard a kind asks before connecting checks URL and address', () => {
    const guard = egressGuard(listed, TEAM_A);
    expect(guard('http://es.internal:9200/_search', '10.0.0.1')).toBe(true);
    expect(guard('http://es.internal:9200/_search', '169.254.169.254')).toBe(false);
    expect(guard('http://other.example/', '10.1.0.1')).toBe(true);
    expect(guard('http://other.example/', '10.2.0.1')).toBe(false);
    expect(guard('not a url', '93.184.215.14')).toBe(false);
  });
});

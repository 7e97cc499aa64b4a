import { describe, expect, it } from 'vitest';
import { natsServers } from '../src/index.js';

describe('natsServers', () => {
  it('natsServers - one URL, or the nodes of a cluster comma-separated or as a list', () => {
    expect(natsServers('nats://a:4222')).toEqual(['nats://a:4222']);
    expect(natsServers('nats://a:4222, nats://b:4222,,nats://c:4222 ')).toEqual([
      'nats://a:4222',
      'nats://b:4222',
      'nats://c:4222',
    ]);
    expect(natsServers([' nats://a:4222', 'nats://b:4222'])).toEqual([
      'nats://a:4222',
      'nats://b:4222',
    ]);
  });
});

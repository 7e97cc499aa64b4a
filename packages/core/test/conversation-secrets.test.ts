import { describe, expect, it } from 'vitest';
import { secretReason } from '../src/index.js';

describe('conversation secrets', () => {
  it('conversation secrets - an invisible character inside the word or the key does not hide it', () => {
    for (const text of [
      'the pass\u200bword is Zq7!hunter2-Xp9',
      'the pass\u2060word is Zq7!hunter2-Xp9',
      'my pass\u00adword: Zq7!hunter2-Xp9',
      'api key: sk-live-9f8e\u200d7d6c5b4a39281706',
      '密\u200b码是 Zq7!hunter2',
    ]) {
      expect(secretReason(text), text).toBeDefined();
    }
  });

  it('conversation secrets - a credential reference, and plain words, are not secrets', () => {
    expect(secretReason('credential env://TOLLGATE_TEAM_A__PROD__ES_ORDERS')).toBeUndefined();
    expect(secretReason('no, amount is the total in\u200b euros')).toBeUndefined();
  });
});

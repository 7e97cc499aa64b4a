/**
 * A kind's vocabulary lives only in its folder: no product source outside
 * `packages/connectors/<kind>/` names the kind or its distinctive words (the one list of kinds
 * names each connector once). Tests, examples, scripts and docs may: they tell stories with
 * real kinds. A new kind adds its words here, or this test fails.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resourceKinds } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Words that name each kind or belong to it alone (case-insensitive, whole words). */
const WORDS: Record<string, { folder: string; words: string[] }> = {
  elasticsearch: {
    folder: 'packages/connectors/elasticsearch/',
    words: [
      'elasticsearch',
      'scaled_float',
      'half_float',
      'unsigned_long',
      'geo_point',
      '_mapping',
      'query dsl',
      "'keyword'",
    ],
  },
  mcp: {
    folder: 'packages/connectors/mcp/',
    words: ['bwrap', 'bubblewrap', 'prlimit', 'rug pull', 'McpSpec', 'pinTools', 'sandboxed'],
  },
  http: {
    folder: 'packages/connectors/http/',
    words: ['openapi', 'operationid', 'requestbody', 'swagger'],
  },
  mysql: {
    folder: 'packages/connectors/mysql/',
    words: [
      'mysql',
      'mariadb',
      'mysql2',
      'max_execution_time',
      'max_statement_time',
      'auto_increment',
    ],
  },
  postgres: {
    folder: 'packages/connectors/postgres/',
    words: ['postgres', 'postgresql', 'pg_catalog', 'pg_stat_statements', 'ilike', 'timestamptz'],
  },
};

/** The only product file allowed to name every kind: the list itself. */
const LIST = 'packages/kinds/src/list.ts';

function productSources(): string[] {
  const tracked = execFileSync('git', ['ls-files', 'packages', 'services'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).split('\n');
  return tracked.filter(
    (file) => /\/src\/.*\.(ts|tsx|js|json)$/.test(file) && !file.includes('/src/gen/'),
  );
}

describe('kind vocabulary', () => {
  it('vocabulary - every registered kind has its words listed here', () => {
    expect(resourceKinds.types().filter((type) => WORDS[type] === undefined)).toEqual([]);
  });

  it('vocabulary - no product source outside a kind names it or its own words', () => {
    const sources = productSources();
    expect(sources.length).toBeGreaterThan(100);
    const offences: string[] = [];
    for (const [type, { folder, words }] of Object.entries(WORDS)) {
      const pattern = new RegExp(
        `(^|[^a-z0-9_])(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})($|[^a-z0-9_])`,
        'i',
      );
      for (const file of sources) {
        if (file.startsWith(folder) || file === LIST) continue;
        const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
        lines.forEach((line, index) => {
          if (pattern.test(line)) offences.push(`${file}:${index + 1} (${type}): ${line.trim()}`);
        });
      }
    }
    expect(offences).toEqual([]);
  });

  it('vocabulary - the list names each connector once', () => {
    const list = readFileSync(`${ROOT}${LIST}`, 'utf8');
    for (const type of resourceKinds.types()) {
      const mentions = list.match(new RegExp(`connector-${type}'`, 'g')) ?? [];
      expect(mentions, type).toHaveLength(1);
    }
  });
});

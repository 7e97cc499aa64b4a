import { describe, expect, test } from 'vitest';
import { validateDescriptor } from './bound.js';
import type { Editable } from './descriptor-cases.js';
import { edited, validAgent, validPolicy, validResource } from './descriptor-cases.js';

const R = validResource;
const A = validAgent;
const P = validPolicy;

/** [case, descriptor, the one problem expected as `path: message`]. */
const MALFORMED: Array<[string, unknown, string]> = [
  [
    'not an object',
    'hello',
    ': expected object with apiVersion, kind, metadata and spec, found "hello"',
  ],
  ['a list', [], ': expected object with apiVersion, kind, metadata and spec, found an empty list'],
  [
    'wrong apiVersion',
    edited(R, (d) => {
      d.apiVersion = 'tollgate.dev/v2';
    }),
    'apiVersion: expected "tollgate.dev/v1", found "tollgate.dev/v2"',
  ],
  [
    'missing apiVersion',
    edited(R, (d) => {
      delete d.apiVersion;
    }),
    'apiVersion: required key missing (expected "tollgate.dev/v1")',
  ],
  [
    'unknown kind',
    edited(R, (d) => {
      d.kind = 'Index';
    }),
    'kind: expected one of Resource, Agent, Policy, found "Index"',
  ],
  [
    'missing kind',
    edited(R, (d) => {
      delete d.kind;
    }),
    'kind: required key missing (expected one of Resource, Agent, Policy)',
  ],
  [
    'uppercase name',
    edited(R, (d) => {
      d.metadata.name = 'Orders';
    }),
    'metadata.name: expected string matching [a-z][a-z0-9_]{2,62}, found "Orders"',
  ],
  [
    'short name',
    edited(R, (d) => {
      d.metadata.name = 'ab';
    }),
    'metadata.name: expected string matching [a-z][a-z0-9_]{2,62}, found "ab"',
  ],
  [
    'missing tenant',
    edited(R, (d) => {
      delete d.metadata.tenant;
    }),
    'metadata.tenant: required key missing (expected string matching [a-z0-9][a-z0-9-]{0,62})',
  ],
  [
    'missing environment',
    edited(R, (d) => {
      delete d.metadata.environment;
    }),
    'metadata.environment: required key missing (expected string matching [a-z0-9][a-z0-9-]{0,62})',
  ],
  [
    'bad environment',
    edited(R, (d) => {
      d.metadata.environment = 'Prod!';
    }),
    'metadata.environment: expected string matching [a-z0-9][a-z0-9-]{0,62}, found "Prod!"',
  ],
  [
    'bad label key',
    edited(R, (d) => {
      d.metadata.labels = { 'Bad Key': 'x' };
    }),
    'metadata.labels["Bad Key"]: invalid key: expected key matching [a-z][a-z0-9_./-]{0,62}, found "Bad Key"',
  ],
  [
    'long label value',
    edited(R, (d) => {
      d.metadata.labels = { domain: 'x'.repeat(300) };
    }),
    `metadata.labels.domain: expected string of at most 256 characters, found "${'x'.repeat(60)}…"`,
  ],
  [
    'multi-line label value',
    edited(R, (d) => {
      d.metadata.labels = { domain: 'a\nb' };
    }),
    'metadata.labels.domain: expected one line without control characters, found a value with control characters',
  ],
  [
    'description not text',
    edited(R, (d) => {
      d.metadata.description = 42;
    }),
    'metadata.description: expected non-empty string of at most 2000 characters, found 42',
  ],
  [
    'other spec type',
    edited(R, (d) => {
      d.spec.type = 'postgres';
    }),
    'spec.type: expected one of elasticsearch, found "postgres"',
  ],
  [
    'ftp endpoint',
    edited(R, (d) => {
      d.spec.connection.endpoint = 'ftp://es:21';
    }),
    'spec.connection.endpoint: expected http(s) URL such as http://data.internal:9200, found scheme "ftp"',
  ],
  [
    'endpoint not a URL',
    edited(R, (d) => {
      d.spec.connection.endpoint = 'not a url';
    }),
    'spec.connection.endpoint: expected http(s) URL such as http://data.internal:9200, found "not a url"',
  ],
  [
    'endpoint with user',
    edited(R, (d) => {
      d.spec.connection.endpoint = 'http://admin@es:9200';
    }),
    'spec.connection.endpoint: expected http(s) URL such as http://data.internal:9200 without user info, found a URL with a user name',
  ],
  [
    'endpoint with query',
    edited(R, (d) => {
      d.spec.connection.endpoint = 'http://es:9200/?x=1';
    }),
    'spec.connection.endpoint: expected http(s) URL such as http://data.internal:9200 without query or fragment, found a URL with a query or fragment',
  ],
  [
    'credentialRef unknown scheme',
    edited(R, (d) => {
      d.spec.connection.credentialRef = 's3://bucket/key';
    }),
    'spec.connection.credentialRef: expected env://VAR_NAME, file://path or vault://mount/path[#key], found unknown scheme "s3"',
  ],
  [
    'credentialRef bad env var',
    edited(R, (d) => {
      d.spec.connection.credentialRef = 'env://1BAD';
    }),
    'spec.connection.credentialRef: expected env://VAR_NAME with VAR_NAME matching [A-Za-z_][A-Za-z0-9_]*, found an invalid variable name',
  ],
  [
    'credentialRef file traversal',
    edited(R, (d) => {
      d.spec.connection.credentialRef = 'file://../secrets';
    }),
    'spec.connection.credentialRef: expected file:///absolute/path or file://relative/path without empty or .. segments, found a malformed file reference',
  ],
  [
    'credentialRef vault without path',
    edited(R, (d) => {
      d.spec.connection.credentialRef = 'vault://only-mount';
    }),
    'spec.connection.credentialRef: expected vault://mount/path[#key] with segments of letters, digits, _, . or -, found a malformed vault reference',
  ],
  [
    'credentialRef without scheme',
    edited(R, (d) => {
      d.spec.connection.credentialRef = 'es-readonly';
    }),
    'spec.connection.credentialRef: expected env://VAR_NAME, file://path or vault://mount/path[#key], found a value without a reference scheme',
  ],
  [
    'timeout zero',
    edited(R, (d) => {
      d.spec.connection.timeoutMs = 0;
    }),
    'spec.connection.timeoutMs: expected integer between 100 and 300000, found 0',
  ],
  [
    'uppercase index',
    edited(R, (d) => {
      d.spec.target.index = 'Orders';
    }),
    'spec.target.index: expected string matching [a-z0-9*][a-z0-9_.*,-]{0,254}, found "Orders"',
  ],
  [
    'unknown field type',
    edited(R, (d) => {
      d.spec.schema.fields.amount.type = 'money';
    }),
    'spec.schema.fields.amount.type: expected one of keyword, text, long, integer, short, byte, double, float, half_float, scaled_float, unsigned_long, date, boolean, ip, object, nested, geo_point, found "money"',
  ],
  [
    'range on keyword',
    edited(R, (d) => {
      d.spec.schema.fields.id.range = true;
    }),
    'spec.schema.fields.id.range: not allowed on a keyword field (range is for numeric and date fields)',
  ],
  [
    'searchable on keyword',
    edited(R, (d) => {
      d.spec.schema.fields.id.searchable = true;
    }),
    'spec.schema.fields.id.searchable: not allowed on a keyword field (searchable is for text fields)',
  ],
  [
    'filterable on text',
    edited(R, (d) => {
      d.spec.schema.fields.internal_note.filterable = true;
    }),
    'spec.schema.fields.internal_note.filterable: not allowed on a text field (use searchable for text fields)',
  ],
  [
    'filterable on geo_point',
    edited(R, (d) => {
      d.spec.schema.fields.location.filterable = true;
    }),
    'spec.schema.fields.location.filterable: not allowed on a geo_point field (filterable is for keyword, numeric, date, boolean and ip fields)',
  ],
  [
    'sortable on nested',
    edited(R, (d) => {
      d.spec.schema.fields.items.sortable = true;
    }),
    'spec.schema.fields.items.sortable: not allowed on a nested field (sortable is for keyword, numeric, date, boolean and ip fields)',
  ],
  [
    'aggregatable on text',
    edited(R, (d) => {
      d.spec.schema.fields.internal_note.aggregatable = true;
    }),
    'spec.schema.fields.internal_note.aggregatable: not allowed on a text field (aggregatable is for keyword, numeric, date, boolean and ip fields)',
  ],
  [
    'format on keyword',
    edited(R, (d) => {
      d.spec.schema.fields.id.format = 'yyyy';
    }),
    'spec.schema.fields.id.format: not allowed on a keyword field (format is for date fields)',
  ],
  [
    'wildcard field name',
    edited(R, (d) => {
      d.spec.schema.fields['tags*'] = { type: 'keyword' };
    }),
    'spec.schema.fields["tags*"]: invalid field name: must not contain *',
  ],
  [
    'metadata field name',
    edited(R, (d) => {
      d.spec.schema.fields._id = { type: 'keyword' };
    }),
    'spec.schema.fields._id: invalid field name: segments must not start with _ (reserved for metadata fields)',
  ],
  [
    'reserved segment',
    edited(R, (d) => {
      d.spec.schema.fields.customer = { type: 'object' };
      d.spec.schema.fields['customer.constructor'] = { type: 'keyword' };
    }),
    'spec.schema.fields["customer.constructor"]: invalid field name: segment "constructor" is reserved',
  ],
  [
    'empty segment',
    edited(R, (d) => {
      d.spec.schema.fields['a..b'] = { type: 'keyword' };
    }),
    'spec.schema.fields["a..b"]: invalid field name: must not have empty segments',
  ],
  [
    'subfield of a multi-field',
    edited(R, (d) => {
      d.spec.schema.fields['user_id.raw'] = { type: 'keyword' };
      d.spec.schema.fields['user_id.raw.lower'] = { type: 'keyword' };
    }),
    'spec.schema.fields["user_id.raw.lower"]: expected parent field "user_id" of type object or nested (or text/keyword for a multi-field directly under it), found a keyword parent',
  ],
  [
    'subfield of a number',
    edited(R, (d) => {
      d.spec.schema.fields['amount.cents'] = { type: 'long' };
    }),
    'spec.schema.fields["amount.cents"]: expected parent field "amount" of type object or nested (or text/keyword for a multi-field directly under it), found a double parent',
  ],
  [
    'unknown field key',
    edited(R, (d) => {
      d.spec.schema.fields.amount.analyzer = 'standard';
    }),
    'spec.schema.fields.amount.analyzer: unknown key (allowed: type, description, filterable, returnable, sortable, range, searchable, aggregatable, format)',
  ],
  [
    'capability not boolean',
    edited(R, (d) => {
      d.spec.schema.fields.id.filterable = 'yes';
    }),
    'spec.schema.fields.id.filterable: expected true or false, found "yes"',
  ],
  [
    'field without type',
    edited(R, (d) => {
      d.spec.schema.fields.extra = { returnable: true };
    }),
    'spec.schema.fields.extra.type: required key missing (expected one of keyword, text, long, integer, short, byte, double, float, half_float, scaled_float, unsigned_long, date, boolean, ip, object, nested, geo_point)',
  ],
  [
    'no allowed roles',
    edited(R, (d) => {
      d.spec.access.allowedRoles = [];
      delete d.spec.access.fieldRoles;
    }),
    'spec.access.allowedRoles: expected non-empty list of strings matching [a-z][a-z0-9_-]{1,62}, found an empty list',
  ],
  [
    'duplicate role',
    edited(R, (d) => {
      d.spec.access.allowedRoles = ['support', 'order_ops', 'support'];
    }),
    'spec.access.allowedRoles: expected list without duplicates, found "support" twice',
  ],
  [
    'bad role name',
    edited(R, (d) => {
      d.spec.access.allowedRoles = ['support', 'order_ops', 'Ops Team'];
    }),
    'spec.access.allowedRoles[2]: expected string matching [a-z][a-z0-9_-]{1,62}, found "Ops Team"',
  ],
  [
    'maxLimit not a number',
    edited(R, (d) => {
      d.spec.access.maxLimit = 'ten';
    }),
    'spec.access.maxLimit: expected integer between 1 and 1000, found "ten"',
  ],
  [
    'maxLimit too large',
    edited(R, (d) => {
      d.spec.access.maxLimit = 5000;
    }),
    'spec.access.maxLimit: expected integer between 1 and 1000, found 5000',
  ],
  [
    'maxLimit fractional',
    edited(R, (d) => {
      d.spec.access.maxLimit = 1.5;
    }),
    'spec.access.maxLimit: expected integer between 1 and 1000, found 1.5',
  ],
  [
    'readonly not boolean',
    edited(R, (d) => {
      d.spec.access.readonly = 'no';
    }),
    'spec.access.readonly: expected true or false, found "no"',
  ],
  [
    'fieldRoles on undeclared field',
    edited(R, (d) => {
      d.spec.access.fieldRoles = { email: ['order_ops'] };
    }),
    'spec.access.fieldRoles.email: names no declared field (declared: id, user_id, amount, created_at, internal_note, location, items)',
  ],
  [
    'fieldRoles role not allowed',
    edited(R, (d) => {
      d.spec.access.fieldRoles = { user_id: ['admin'] };
    }),
    'spec.access.fieldRoles.user_id[0]: expected a role listed in spec.access.allowedRoles, found role "admin"',
  ],
  [
    'redact undeclared field',
    edited(R, (d) => {
      d.spec.access.redact = { email: 'mask' };
    }),
    'spec.access.redact.email: names no declared field (declared: id, user_id, amount, created_at, internal_note, location, items)',
  ],
  [
    'unknown redaction',
    edited(R, (d) => {
      d.spec.access.redact = { user_id: 'blur' };
    }),
    'spec.access.redact.user_id: expected one of mask, hash, drop, last4 or object with rule and exceptRoles, found "blur"',
  ],
  [
    'rowFilter undeclared field',
    edited(R, (d) => {
      d.spec.access.rowFilter = { field: 'tenant_id', equals: 'principal.tenant' };
    }),
    'spec.access.rowFilter.field: expected a declared field of exact string values, found undeclared field "tenant_id"',
  ],
  [
    'rowFilter on double',
    edited(R, (d) => {
      d.spec.access.rowFilter = { field: 'amount', equals: 'principal.tenant' };
    }),
    'spec.access.rowFilter.field: expected a declared field of exact string values, found a double field',
  ],
  [
    'rowFilter attribute',
    edited(R, (d) => {
      d.spec.access.rowFilter = { field: 'user_id', equals: 'principal.role' };
    }),
    'spec.access.rowFilter.equals: expected one of principal.tenant, principal.agent, principal.user, found "principal.role"',
  ],
  [
    'missing access',
    edited(R, (d) => {
      delete d.spec.access;
    }),
    'spec.access: required key missing (expected object with allowedRoles)',
  ],
  [
    'agent without roles',
    edited(A, (d) => {
      d.spec.roles = [];
    }),
    'spec.roles: expected non-empty list of strings matching [a-z][a-z0-9_-]{1,62}, found an empty list',
  ],
  [
    'agent name with dot',
    edited(A, (d) => {
      d.metadata.name = 'bot.one';
    }),
    'metadata.name: expected string matching [a-z][a-z0-9_-]{2,62}, found "bot.one"',
  ],
  [
    'agent environment',
    edited(A, (d) => {
      d.metadata.environment = 'prod';
    }),
    'metadata.environment: unknown key (allowed: name, tenant, description, labels)',
  ],
  [
    'policy says nothing',
    edited(P, (d) => {
      d.spec = {};
    }),
    'spec: expected at least one of grants or cedar, found neither',
  ],
  [
    'policy with empty grants',
    edited(P, (d) => {
      d.spec = { grants: [] };
    }),
    'spec: expected at least one of grants or cedar, found neither',
  ],
  [
    'blank cedar',
    edited(P, (d) => {
      d.spec = { cedar: '  \n' };
    }),
    'spec.cedar: expected Cedar policy text, found only whitespace',
  ],
  [
    'unknown effect',
    edited(P, (d) => {
      d.spec.grants[0].effect = 'permit';
    }),
    'spec.grants[0].effect: expected one of allow, deny, require_approval, found "permit"',
  ],
  [
    'grant without principals',
    edited(P, (d) => {
      d.spec.grants[0].principals = {};
    }),
    'spec.grants[0].principals: expected at least one of roles or agents, found neither',
  ],
  [
    'malformed action',
    edited(P, (d) => {
      d.spec.grants[0].actions = ['orders:read'];
    }),
    'spec.grants[0].actions[0]: expected string matching (\\*|[a-z][a-z0-9_]{2,62})\\.(\\*|[a-z][a-z0-9_]{0,62}), found "orders:read"',
  ],
  [
    'operation not a name',
    edited(P, (d) => {
      d.spec.grants[1].actions = ['es_orders.Delete'];
    }),
    'spec.grants[1].actions[0]: expected string matching (\\*|[a-z][a-z0-9_]{2,62})\\.(\\*|[a-z][a-z0-9_]{0,62}), found "es_orders.Delete"',
  ],
  [
    'CIDR prefix too long',
    edited(P, (d) => {
      d.spec.grants[0].conditions.ipCidr = ['10.0.0.0/33'];
    }),
    'spec.grants[0].conditions.ipCidr[0]: expected IPv4 or IPv6 CIDR such as 10.0.0.0/8, found "10.0.0.0/33"',
  ],
  [
    'CIDR bad address',
    edited(P, (d) => {
      d.spec.grants[0].conditions.ipCidr = ['10.0.0.0/8', '300.1.1.1/8'];
    }),
    'spec.grants[0].conditions.ipCidr[1]: expected IPv4 or IPv6 CIDR such as 10.0.0.0/8, found "300.1.1.1/8"',
  ],
  [
    'CIDR without prefix',
    edited(P, (d) => {
      d.spec.grants[0].conditions.ipCidr = ['10.1.2.3'];
    }),
    'spec.grants[0].conditions.ipCidr[0]: expected IPv4 or IPv6 CIDR such as 10.0.0.0/8, found "10.1.2.3"',
  ],
  [
    'time window shape',
    edited(P, (d) => {
      d.spec.grants[0].conditions.timeWindow = '8-20';
    }),
    'spec.grants[0].conditions.timeWindow: expected "HH:MM-HH:MM Area/City" such as "08:00-20:00 Asia/Shanghai", found "8-20"',
  ],
  [
    'time window hour 24',
    edited(P, (d) => {
      d.spec.grants[0].conditions.timeWindow = '08:00-24:00 UTC';
    }),
    'spec.grants[0].conditions.timeWindow: expected "HH:MM-HH:MM Area/City" such as "08:00-20:00 Asia/Shanghai", found "08:00-24:00 UTC"',
  ],
  [
    'unknown time zone',
    edited(P, (d) => {
      d.spec.grants[0].conditions.timeWindow = '08:00-20:00 Mars/Olympus';
    }),
    'spec.grants[0].conditions.timeWindow: expected an IANA time zone such as Asia/Shanghai, found unknown time zone "Mars/Olympus"',
  ],
  [
    'empty time window',
    edited(P, (d) => {
      d.spec.grants[0].conditions.timeWindow = '08:00-08:00 UTC';
    }),
    'spec.grants[0].conditions.timeWindow: expected a window whose start and end differ, found "08:00-08:00 UTC"',
  ],
  [
    'zero rate',
    edited(P, (d) => {
      d.spec.grants[0].rateLimit = { requests: 0, perSeconds: 60 };
    }),
    'spec.grants[0].rateLimit.requests: expected integer between 1 and 1000000, found 0',
  ],
  [
    'bad condition environment',
    edited(P, (d) => {
      d.spec.grants[0].conditions.environment = ['Prod'];
    }),
    'spec.grants[0].conditions.environment[0]: expected string matching [a-z0-9][a-z0-9-]{0,62}, found "Prod"',
  ],
];

describe('descriptor validation', () => {
  test('validation - the base descriptors are valid', () => {
    for (const base of [R, A, P]) expect(validateDescriptor(base())).toMatchObject({ ok: true });
  });

  test('validation - a multi-field such as title.raw (keyword under text) is declarable and filterable', () => {
    const input = edited(R, (d) => {
      d.spec.schema.fields['title'] = { type: 'text', searchable: true, returnable: true };
      d.spec.schema.fields['title.raw'] = { type: 'keyword', filterable: true, sortable: true };
    });
    expect(validateDescriptor(input)).toMatchObject({ ok: true });
  });

  test('validation - a redaction may exempt roles, each of them allowed on the resource', () => {
    const exempt = edited(R, (d) => {
      d.spec.access.redact = { user_id: { rule: 'mask', exceptRoles: ['order_ops'] } };
    });
    expect(validateDescriptor(exempt)).toMatchObject({ ok: true });
    const stranger = edited(R, (d) => {
      d.spec.access.redact = { user_id: { rule: 'mask', exceptRoles: ['auditor'] } };
    });
    const result = validateDescriptor(stranger);
    expect(result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.access.redact.user_id.exceptRoles[0]: expected a role listed in spec.access.allowedRoles, found role "auditor"',
    ]);
  });

  test.each(MALFORMED)(
    'validation - rejects %s with one exact problem',
    (_name, input, expected) => {
      const result = validateDescriptor(input);
      expect(result.ok).toBe(false);
      const lines = result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
      expect(lines).toEqual([expected]);
    },
  );

  test('validation - problems carry expected and found apart from the message', () => {
    const result = validateDescriptor(
      edited(R, (d) => {
        d.spec.access.maxLimit = 'ten';
      }),
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: 'spec.access.maxLimit',
          message: 'expected integer between 1 and 1000, found "ten"',
          expected: 'integer between 1 and 1000',
          found: '"ten"',
        },
      ],
    });
  });

  test('validation - reports every problem at once', () => {
    const input = edited(R, (d) => {
      d.metadata.name = 'Orders';
      d.spec.connection.endpoint = 'ftp://es';
      d.spec.schema.fields.id.range = true;
      d.spec.access.maxLimit = 5000;
      d.spec.access.redact = { email: 'mask' };
    });
    const result = validateDescriptor(input);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'metadata.name',
      'spec.access.maxLimit',
      'spec.access.redact.email',
      'spec.connection.endpoint',
      'spec.schema.fields.id.range',
    ]);
  });

  test('validation - unknown keys are errors at every level', () => {
    const levels: Array<[(d: Editable) => void, string]> = [
      [
        (d) => {
          d.status = {};
        },
        'status: unknown key (allowed: apiVersion, kind, metadata, spec)',
      ],
      [
        (d) => {
          d.metadata.owner = 'bob';
        },
        'metadata.owner: unknown key (allowed: name, tenant, environment, description, labels)',
      ],
      [
        (d) => {
          d.spec.extra = 1;
        },
        'spec.extra: unknown key (allowed: type, connection, target, schema, access)',
      ],
      [
        (d) => {
          d.spec.connection.user = 'admin';
        },
        'spec.connection.user: unknown key (allowed: endpoint, credentialRef, timeoutMs)',
      ],
      [
        (d) => {
          d.spec.target.alias = 'x';
        },
        'spec.target.alias: unknown key (allowed: index)',
      ],
      [
        (d) => {
          d.spec.schema.dynamic = true;
        },
        'spec.schema.dynamic: unknown key (allowed: fields)',
      ],
      [
        (d) => {
          d.spec.schema.fields.id.boost = 2;
        },
        'spec.schema.fields.id.boost: unknown key (allowed: type, description, filterable, returnable, sortable, range, searchable, aggregatable, format)',
      ],
      [
        (d) => {
          d.spec.access.admins = ['x'];
        },
        'spec.access.admins: unknown key (allowed: allowedRoles, readonly, maxLimit, fieldRoles, redact, rowFilter, idempotency)',
      ],
      [
        (d) => {
          d.spec.access.rowFilter = { field: 'user_id', equals: 'principal.user', op: 'eq' };
        },
        'spec.access.rowFilter.op: unknown key (allowed: field, equals)',
      ],
    ];
    for (const [edit, expected] of levels) {
      const result = validateDescriptor(edited(R, edit));
      expect(result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
        expected,
      ]);
    }
    const grant = validateDescriptor(
      edited(P, (d) => {
        d.spec.grants[0].conditions.weekday = 'mon';
        d.spec.grants[0].principals.users = ['u'];
      }),
    );
    expect(grant.ok ? [] : grant.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.grants[0].principals.users: unknown key (allowed: roles, agents)',
      'spec.grants[0].conditions.weekday: unknown key (allowed: ipCidr, timeWindow, environment)',
    ]);
  });

  test('validation - a literal secret is rejected naming the field, never echoing it', () => {
    const secret = 'hunter2-is-the-password';
    const result = validateDescriptor(
      edited(R, (d) => {
        d.spec.connection.password = secret;
      }),
    );
    expect(result.ok ? [] : result.problems).toEqual([
      {
        path: 'spec.connection.password',
        message: 'unknown key (allowed: endpoint, credentialRef, timeoutMs)',
        expected: 'one of endpoint, credentialRef, timeoutMs',
        found: 'key "password"',
      },
      {
        path: 'spec.connection.password',
        message:
          'looks like a secret (literal value under a secret-named key); put secrets in a vault and reference them with credentialRef',
        expected: 'a credentialRef (env://, file:// or vault://), never a literal secret',
        found: 'a literal secret (literal value under a secret-named key)',
      },
    ]);
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  test('validation - an endpoint with user:password is reported as a secret only', () => {
    const result = validateDescriptor(
      edited(R, (d) => {
        d.spec.connection.endpoint = 'https://elastic:Sup3rS3cret@es.internal:9200';
      }),
    );
    expect(result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.connection.endpoint: looks like a secret (URL with user:password); put secrets in a vault and reference them with credentialRef',
    ]);
    expect(JSON.stringify(result)).not.toContain('Sup3rS3cret');
  });

  test('validation - a value that fails its schema and looks like a secret is not echoed', () => {
    const token = `ghp_${'a1B2c3D4e5F6g7H8i9J0'.repeat(2)}`;
    const result = validateDescriptor(
      edited(R, (d) => {
        d.metadata.name = token;
      }),
    );
    expect(result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'metadata.name: expected string matching [a-z][a-z0-9_]{2,62}, found a value that looks like a secret',
      'metadata.name: looks like a secret (GitHub token); put secrets in a vault and reference them with credentialRef',
    ]);
    expect(JSON.stringify(result)).not.toContain(token);
  });

  test('validation - secrets are found even in descriptors of unknown kind', () => {
    const result = validateDescriptor({
      apiVersion: 'tollgate.dev/v1',
      kind: 'Secret',
      data: { token: 'abc123xyz' },
    });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['kind', 'data.token']);
  });

  test('validation - a valid descriptor comes back as a copy', () => {
    const input = validResource();
    const result = validateDescriptor(input);
    expect(result.ok && result.descriptor).toEqual(input);
    expect(result.ok && result.descriptor).not.toBe(input);
  });

  test('validation - a __proto__ field name is rejected without touching prototypes', () => {
    const input = JSON.parse('{"__proto__": {"type": "keyword"}}') as Record<string, unknown>;
    const result = validateDescriptor(
      edited(R, (d) => {
        d.spec.schema.fields = input;
        d.spec.access = { allowedRoles: ['support'] };
      }),
    );
    expect(result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.schema.fields.__proto__: invalid field name: segment "__proto__" is reserved',
    ]);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });
});

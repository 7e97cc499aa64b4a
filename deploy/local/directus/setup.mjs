// Brings a running Directus to the state Tollgate's tests expect, through its REST API, and
// is safe to run again: a `tickets` collection, a `Ticket connector` role whose policy may
// read, create and update tickets (no delete, no Data Studio, no system collections), and a
// user of that role with a static token. Used by deploy/local/directus.sh and by the
// directus-setup service of docker-compose.yml.
//
// Environment: DIRECTUS_URL, DIRECTUS_ADMIN_EMAIL, DIRECTUS_ADMIN_PASSWORD,
// DIRECTUS_CONNECTOR_TOKEN (the static token to give the connector user). Prints what it
// changed, never a secret.

const env = process.env;
for (const name of [
  'DIRECTUS_URL',
  'DIRECTUS_ADMIN_EMAIL',
  'DIRECTUS_ADMIN_PASSWORD',
  'DIRECTUS_CONNECTOR_TOKEN',
]) {
  if (!env[name]) {
    process.stderr.write(`directus setup: ${name} is not set\n`);
    process.exit(2);
  }
}
const base = env.DIRECTUS_URL.replace(/\/+$/, '');
const COLLECTION = 'tickets';
const ROLE = 'Ticket connector';
const POLICY = 'Ticket connector';
const CONNECTOR_EMAIL = 'tollgate-connector@example.com';

const choices = (values) => values.map((v) => ({ text: v, value: v }));
const oneOf = (field, values) => ({ _and: [{ [field]: { _in: values } }] });

/** The tickets collection: what a small help desk keeps per ticket. */
const ticketFields = [
  {
    field: 'id',
    type: 'integer',
    meta: { hidden: true, readonly: true, interface: 'input' },
    schema: { is_primary_key: true, has_auto_increment: true },
  },
  {
    field: 'subject',
    type: 'string',
    meta: { interface: 'input', required: true, note: 'One line summary of the request' },
    schema: { is_nullable: false, max_length: 200 },
  },
  {
    field: 'description',
    type: 'text',
    meta: { interface: 'input-multiline', note: 'What the requester wrote' },
    schema: { is_nullable: true },
  },
  {
    field: 'status',
    type: 'string',
    meta: {
      interface: 'select-dropdown',
      options: { choices: choices(['open', 'pending', 'closed']) },
      required: true,
      validation: oneOf('status', ['open', 'pending', 'closed']),
      validation_message: 'status must be open, pending or closed',
    },
    schema: { is_nullable: false, default_value: 'open', max_length: 16 },
  },
  {
    field: 'priority',
    type: 'string',
    meta: {
      interface: 'select-dropdown',
      options: { choices: choices(['low', 'normal', 'high', 'urgent']) },
      required: true,
      validation: oneOf('priority', ['low', 'normal', 'high', 'urgent']),
      validation_message: 'priority must be low, normal, high or urgent',
    },
    schema: { is_nullable: false, default_value: 'normal', max_length: 16 },
  },
  {
    field: 'channel',
    type: 'string',
    meta: {
      interface: 'select-dropdown',
      options: { choices: choices(['email', 'web', 'phone', 'chat']) },
      validation: oneOf('channel', ['email', 'web', 'phone', 'chat']),
      validation_message: 'channel must be email, web, phone or chat',
    },
    schema: { is_nullable: false, default_value: 'web', max_length: 16 },
  },
  {
    field: 'requester_email',
    type: 'string',
    meta: {
      interface: 'input',
      required: true,
      validation: { _and: [{ requester_email: { _regex: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' } }] },
      validation_message: 'requester_email must be an email address',
    },
    schema: { is_nullable: false, max_length: 254 },
  },
  {
    field: 'requester_name',
    type: 'string',
    meta: { interface: 'input' },
    schema: { is_nullable: true, max_length: 120 },
  },
  {
    field: 'assignee',
    type: 'string',
    meta: { interface: 'input', note: 'Email of the agent working on it' },
    schema: { is_nullable: true, max_length: 254 },
  },
  {
    field: 'tags',
    type: 'json',
    meta: { interface: 'tags', special: ['cast-json'] },
    schema: { is_nullable: true },
  },
  {
    field: 'due_date',
    type: 'date',
    meta: { interface: 'datetime' },
    schema: { is_nullable: true },
  },
  {
    field: 'date_created',
    type: 'timestamp',
    meta: { special: ['date-created'], interface: 'datetime', readonly: true },
    schema: { is_nullable: true },
  },
  {
    field: 'date_updated',
    type: 'timestamp',
    meta: { special: ['date-updated'], interface: 'datetime', readonly: true },
    schema: { is_nullable: true },
  },
];

/**
 * What the connector may do: read, create and update tickets, nothing else (no delete, no
 * other collection). Directus without a licence refuses field-level rules ("custom permission
 * rules"), so each action covers all fields; which fields an agent may set or see is Tollgate's
 * to decide.
 */
const permissions = ['read', 'create', 'update'].map((action) => ({ action, fields: ['*'] }));

let accessToken = '';

async function api(method, path, body, { allow = [] } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok && !allow.includes(res.status)) {
    throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  }
  return { status: res.status, data: text ? JSON.parse(text).data : undefined };
}

const say = (msg) => process.stdout.write(`directus setup: ${msg}\n`);
const q = (filter) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;

async function main() {
  const login = await api('POST', '/auth/login', {
    email: env.DIRECTUS_ADMIN_EMAIL,
    password: env.DIRECTUS_ADMIN_PASSWORD,
  });
  accessToken = login.data.access_token;

  // The collection, then any field added to the list since it was created.
  const existing = await api('GET', `/collections/${COLLECTION}`, undefined, { allow: [403, 404] });
  if (existing.status !== 200) {
    await api('POST', '/collections', {
      collection: COLLECTION,
      meta: { icon: 'support_agent', note: 'Help desk tickets', display_template: '{{subject}}' },
      schema: {},
      fields: ticketFields,
    });
    say(`created collection ${COLLECTION} (${ticketFields.length} fields)`);
  } else {
    const have = new Set((await api('GET', `/fields/${COLLECTION}`)).data.map((f) => f.field));
    for (const f of ticketFields.filter((f) => !have.has(f.field))) {
      await api('POST', `/fields/${COLLECTION}`, f);
      say(`added field ${COLLECTION}.${f.field}`);
    }
  }

  // Policy (with exactly the permissions above), role, and the link between them.
  let policy = (await api('GET', `/policies?${q({ name: { _eq: POLICY } })}&fields=id`)).data[0];
  if (!policy) {
    policy = (
      await api('POST', '/policies', {
        name: POLICY,
        icon: 'support_agent',
        description: `Read, create and update ${COLLECTION}; nothing else`,
        admin_access: false,
        app_access: false,
      })
    ).data;
    say(`created policy ${POLICY}`);
  }
  const old = (await api('GET', `/permissions?${q({ policy: { _eq: policy.id } })}&fields=id`))
    .data;
  if (old.length > 0)
    await api(
      'DELETE',
      '/permissions',
      old.map((p) => p.id),
    );
  await api(
    'POST',
    '/permissions',
    permissions.map((p) => ({ policy: policy.id, collection: COLLECTION, ...p })),
  );
  let role = (await api('GET', `/roles?${q({ name: { _eq: ROLE } })}&fields=id`)).data[0];
  if (!role) {
    role = (await api('POST', '/roles', { name: ROLE, icon: 'support_agent' })).data;
    say(`created role ${ROLE}`);
  }
  const link = await api(
    'GET',
    `/access?${q({ _and: [{ role: { _eq: role.id } }, { policy: { _eq: policy.id } }] })}&fields=id`,
  );
  if (link.data.length === 0) await api('POST', '/access', { role: role.id, policy: policy.id });

  // The connector's user: no password (it cannot log in), only the static token.
  const user = (await api('GET', `/users?${q({ email: { _eq: CONNECTOR_EMAIL } })}&fields=id`))
    .data[0];
  const profile = {
    role: role.id,
    status: 'active',
    token: env.DIRECTUS_CONNECTOR_TOKEN,
    first_name: 'Tollgate',
    last_name: 'connector',
  };
  if (user) await api('PATCH', `/users/${user.id}`, profile);
  else {
    await api('POST', '/users', { email: CONNECTOR_EMAIL, ...profile });
    say(`created user ${CONNECTOR_EMAIL} (role ${ROLE})`);
  }

  // Check with the connector's own token: it sees tickets in the OpenAPI document, may list
  // them, and may not read users.
  accessToken = env.DIRECTUS_CONNECTOR_TOKEN;
  const oas = await fetch(`${base}/server/specs/oas`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const spec = oas.ok ? await oas.json() : {};
  if (!spec.paths?.[`/items/${COLLECTION}`]) {
    throw new Error(`/server/specs/oas (HTTP ${oas.status}) has no /items/${COLLECTION}`);
  }
  await api('GET', `/items/${COLLECTION}?limit=1`);
  const users = await api('GET', '/users', undefined, { allow: [403] });
  if (users.status !== 403) throw new Error(`the connector may read /users (HTTP ${users.status})`);
  say(`ready: ${COLLECTION} in /server/specs/oas; connector token may read tickets, not users`);
}

main().catch((err) => {
  process.stderr.write(`directus setup: FAILED: ${err.message}\n`);
  process.exit(1);
});

/**
 * The canonical encoding audit records are hashed over: JSON with object keys sorted by UTF-16
 * code units at every level, no whitespace, strings and numbers as JSON.stringify writes them,
 * `toJSON` honoured (dates become RFC 3339 text) and `undefined` properties left out.
 *
 * Audit owns this encoding (rather than borrowing a shared helper) because every stored hash
 * depends on it: it must never change under the records already written.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, ancestors: Set<object>): string {
  if (value === null) return 'null';
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return write((value as { toJSON: () => unknown }).toJSON(), ancestors);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not JSON`);
      return JSON.stringify(value);
    case 'object':
      return writeContainer(value, ancestors);
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not JSON`);
  }
}

function writeContainer(value: object, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new TypeError('canonicalJson: cyclic structure');
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) =>
      item === undefined ? 'null' : write(item, ancestors),
    );
    text = `[${items.join(',')}]`;
  } else {
    const entries = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    text = `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${write(child, ancestors)}`).join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}

/** A Cedar string literal for `value` (Cedar escapes control characters as `\u{…}`, not `\uXXXX`). */
export function cedarString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += char;
  }
  return `${out}"`;
}

/** `Type::"id"` */
export function cedarEntity(type: string, id: string): string {
  return `${type}::${cedarString(id)}`;
}

/** `[a, b, c]` */
export function cedarSet(items: readonly string[]): string {
  return `[${items.join(', ')}]`;
}

/** 1-based line and column (in characters) of a UTF-8 byte offset in `text`, as Cedar reports them. */
export function lineAndColumn(text: string, byteOffset: number): { line: number; column: number } {
  const before = Buffer.from(text, 'utf8').subarray(0, Math.max(0, byteOffset)).toString('utf8');
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

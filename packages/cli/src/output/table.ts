import { displayWidth } from './style.js';
import type { Style } from './style.js';

/** A column of a table: its heading and how to read a cell from a row. */
export interface Column<Row> {
  header: string;
  cell(row: Row): string;
  /** Right-align (numbers). */
  right?: boolean;
  /** Longest a cell may be before it is cut with `…` (default 60). */
  max?: number;
}

/**
 * Plain-text table: a bold header line and one line per row, columns padded to the widest
 * cell (East Asian wide characters count double). Pure; `style` only adds emphasis.
 */
export function renderTable<Row>(
  columns: ReadonlyArray<Column<Row>>,
  rows: readonly Row[],
  style: Style,
): string {
  const cells = rows.map((row) =>
    columns.map((column) => clip(oneLine(column.cell(row)), column.max ?? 60)),
  );
  const widths = columns.map((column, i) =>
    Math.max(displayWidth(column.header), ...cells.map((line) => displayWidth(line[i] ?? ''))),
  );
  const format = (line: string[]): string =>
    line
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(cell)));
        if (i === line.length - 1 && !columns[i]?.right) return cell;
        return columns[i]?.right ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  const header = format(columns.map((column) => column.header));
  return [style.bold(header), ...cells.map(format)].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** Cuts `text` to at most `max` display columns, ending in `…` when cut. */
export function clip(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let out = '';
  for (const char of text) {
    if (displayWidth(out + char) > max - 1) break;
    out += char;
  }
  return `${out}…`;
}

/** `key: value` lines with the keys padded to one width. */
export function renderFields(
  fields: ReadonlyArray<readonly [string, string]>,
  style: Style,
): string {
  const width = Math.max(0, ...fields.map(([key]) => displayWidth(key)));
  return fields
    .map(([key, value]) => `${style.dim(`${key}:`.padEnd(width + 1))} ${value}`)
    .join('\n');
}

import { failureLine } from '../errors.js';
import type { Failure } from '../errors.js';
import { colourWanted, createStyle } from './style.js';
import type { Style } from './style.js';

/** Where a command writes, and the environment it runs in (the process's, or a test's). */
export interface CliIo {
  stdout: TextSink;
  stderr: TextSink;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Lines typed by the user (`chat`); default: process.stdin. */
  stdin?: NodeJS.ReadableStream;
}

/** A stream the CLI writes text to; `isTTY` decides colours and spinners. */
export interface TextSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A long step shown to people while it runs (nothing is shown with `--json`). */
export interface Progress {
  /** Replaces the step's detail text. */
  update(detail: string): void;
  /** Ends the step as done, with an optional closing note. */
  done(note?: string): void;
  /** Ends the step as failed. */
  fail(note?: string): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * How a command reports: with `--json`, exactly one JSON document on stdout and nothing else;
 * otherwise text for people on stdout, notes and progress on stderr, in colour on a terminal.
 */
export class Output {
  readonly json: boolean;
  readonly style: Style;
  readonly #io: CliIo;
  #printed = false;

  constructor(io: CliIo, options: { json: boolean }) {
    this.#io = io;
    this.json = options.json;
    this.style = createStyle(!options.json && colourWanted(io.stdout.isTTY, io.env));
  }

  /** True once a result (or error document) was written. */
  get printed(): boolean {
    return this.#printed;
  }

  /** The command's result: `document` as JSON, or `human` text for people. */
  result(document: unknown, human: string | (() => string)): void {
    this.#printed = true;
    if (this.json) {
      this.#io.stdout.write(`${toJsonText(document)}\n`);
      return;
    }
    const text = typeof human === 'string' ? human : human();
    if (text !== '') this.#io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Text for people as it happens (e.g. the turns of a chat); ignored with `--json`. */
  line(text: string): void {
    if (!this.json) this.#io.stdout.write(`${text}\n`);
  }

  /** A side note on stderr (never with `--json`). */
  note(text: string): void {
    if (!this.json) this.#io.stderr.write(`${text}\n`);
  }

  /** A warning on stderr (never with `--json`). */
  warn(text: string): void {
    if (!this.json) this.#io.stderr.write(`${this.style.yellow('warning:')} ${text}\n`);
  }

  /** Reports a failure: the one-line reason on stderr, and with `--json` the error document. */
  failure(failure: Failure): void {
    if (this.json && !this.#printed) {
      this.#printed = true;
      this.#io.stdout.write(
        `${toJsonText({ error: { code: failure.code, message: failure.message, details: failure.details } })}\n`,
      );
    }
    const style = createStyle(colourWanted(this.#io.stderr.isTTY, this.#io.env));
    this.#io.stderr.write(`${style.red(failureLine(failure))}\n`);
    if (!this.json) {
      for (const detail of failure.details.slice(0, 50)) {
        const where = detail.path === '' ? '' : `${detail.path}: `;
        this.#io.stderr.write(`  ${where}${detail.message}\n`);
      }
    }
  }

  /** Starts showing a long step: a spinner on a terminal, start and end lines otherwise. */
  progress(label: string): Progress {
    if (this.json) return { update: () => undefined, done: () => undefined, fail: () => undefined };
    const stderr = this.#io.stderr;
    const style = createStyle(colourWanted(stderr.isTTY, this.#io.env));
    const started = Date.now();
    let detail = '';
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
    if (stderr.isTTY !== true) {
      // Logs get the start and the end; the running detail is for terminals.
      stderr.write(`${label}…\n`);
      return {
        update: () => undefined,
        done: (note) =>
          stderr.write(`${style.green('✓')} ${label}${note ? `: ${note}` : ''} (${elapsed()})\n`),
        fail: (note) =>
          stderr.write(`${style.red('✗')} ${label}${note ? `: ${note}` : ''} (${elapsed()})\n`),
      };
    }
    let frame = 0;
    const draw = () => {
      frame = (frame + 1) % SPINNER.length;
      const text = `${style.cyan(SPINNER[frame] ?? '')} ${label} ${style.dim(`${elapsed()} ${detail}`)}`;
      stderr.write(`\r\u001b[2K${text.slice(0, 400)}`);
    };
    const timer = setInterval(draw, 100);
    timer.unref();
    draw();
    const end = (mark: string, note?: string) => {
      clearInterval(timer);
      stderr.write(
        `\r\u001b[2K${mark} ${label}${note ? `: ${note}` : ''} ${style.dim(`(${elapsed()})`)}\n`,
      );
    };
    return {
      update: (text) => {
        detail = text;
      },
      done: (note) => end(style.green('✓'), note),
      fail: (note) => end(style.red('✗'), note),
    };
  }
}

/** JSON with two-space indentation; bigints become numbers when safe, else strings. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) =>
      typeof v === 'bigint'
        ? v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
          ? Number(v)
          : v.toString()
        : v,
    2,
  );
}

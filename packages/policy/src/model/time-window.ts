import { isTimeZone } from './clock.js';

/** A daily window `HH:MM-HH:MM Area/City`, as minutes since local midnight; may cross midnight. */
export interface TimeWindow {
  /** Inclusive, 0–1439. */
  start: number;
  /** Exclusive, 0–1440. When `end < start` the window crosses midnight (`22:00-00:00` too). */
  end: number;
  zone: string;
}

const WINDOW = /^(\d{2}):(\d{2})-(\d{2}):(\d{2}) (\S+)$/;

/** Parses `08:00-20:00 Asia/Shanghai` or `22:00-06:00 Europe/Berlin`; returns an error message otherwise. */
export function parseTimeWindow(text: string): TimeWindow | string {
  const match = WINDOW.exec(text);
  if (!match) return `"${text}" is not "HH:MM-HH:MM Area/City"`;
  const [, h1, m1, h2, m2, zone] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const start = clockMinutes(h1, m1, false);
  const end = clockMinutes(h2, m2, true);
  if (start === undefined) return `"${text}": start ${h1}:${m1} is not a time of day (00:00-23:59)`;
  if (end === undefined) return `"${text}": end ${h2}:${m2} is not a time of day (00:00-24:00)`;
  if (start === end) {
    return `"${text}": start and end are the same time; omit timeWindow to allow the whole day`;
  }
  if (!isTimeZone(zone)) return `"${text}": unknown time zone "${zone}"`;
  return { start, end, zone };
}

function clockMinutes(
  hours: string,
  minutes: string,
  allowMidnightEnd: boolean,
): number | undefined {
  const h = Number(hours);
  const m = Number(minutes);
  if (allowMidnightEnd && h === 24 && m === 0) return 1440;
  return h <= 23 && m <= 59 ? h * 60 + m : undefined;
}

export function crossesMidnight(window: TimeWindow): boolean {
  return window.end < window.start;
}

export function inTimeWindow(window: TimeWindow, minute: number): boolean {
  return crossesMidnight(window)
    ? minute >= window.start || minute < window.end
    : minute >= window.start && minute < window.end;
}

/** The Cedar test of `window` against `context.clock.<key>`. */
export function timeWindowCedar(window: TimeWindow, key: string): string {
  const clock = `context.clock.${key}`;
  return crossesMidnight(window)
    ? `(${clock} >= ${window.start} || ${clock} < ${window.end})`
    : `(${clock} >= ${window.start} && ${clock} < ${window.end})`;
}

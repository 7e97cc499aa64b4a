/**
 * Time zones and local clocks. Cedar has no time-zone support, so the decider computes the
 * local minutes-of-day for every zone a bundle uses and hands them to Cedar as
 * `context.clock.<key>`; compiled time windows compare against those numbers.
 */

/** A zone a bundle uses and the attribute name it has under `context.clock`. */
export interface ZoneKey {
  /** IANA name, e.g. `Europe/Berlin`. */
  zone: string;
  /** Cedar identifier, e.g. `Europe_Berlin`. */
  key: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** `Europe/Berlin` → `Europe_Berlin`, `Etc/GMT+5` → `Etc_GMT_plus_5`. */
export function zoneKey(zone: string): string {
  return zone.replace(/\+/g, '_plus_').replace(/[^A-Za-z0-9_]/g, '_');
}

/** The zone whose key is `key`, for raw Cedar that reads `context.clock.<key>` directly. */
export function zoneForKey(key: string): string | undefined {
  if (key === 'UTC') return 'UTC';
  return Intl.supportedValuesOf('timeZone').find((zone) => zoneKey(zone) === key);
}

/** Local minutes since midnight (0–1439) in `zone` at `epochMs`. */
export function minutesOfDay(zone: string, epochMs: number): number {
  let hour = 0;
  let minute = 0;
  for (const part of formatterFor(zone).formatToParts(epochMs)) {
    if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return hour * 60 + minute;
}

/**
 * Reads the local clocks of a fixed set of zones. UTC offsets are memoised per zone and
 * 15-minute UTC bucket (zone transitions fall on such boundaries), so a read is arithmetic
 * after the first in a bucket; the last reading is memoised per minute.
 */
export class ZoneClock {
  readonly zones: readonly ZoneKey[];
  private lastMinute = Number.NaN;
  private lastReading: Record<string, number> = {};
  private readonly offsets = new Map<string, number>();

  constructor(zones: readonly ZoneKey[]) {
    this.zones = zones;
  }

  /** `{ <key>: minutesOfDay }` for every zone, at `epochMs`. */
  read(epochMs: number): Record<string, number> {
    const minute = Math.floor(epochMs / 60_000);
    if (minute !== this.lastMinute) {
      const reading: Record<string, number> = {};
      const utcMinute = ((minute % 1440) + 1440) % 1440;
      for (const { zone, key } of this.zones) {
        reading[key] = (((utcMinute + this.offset(zone, minute)) % 1440) + 1440) % 1440;
      }
      this.lastMinute = minute;
      this.lastReading = reading;
    }
    return this.lastReading;
  }

  /** Local minus UTC minutes-of-day in `zone` during the 15-minute bucket holding `minute`. */
  private offset(zone: string, minute: number): number {
    const bucket = `${zone} ${Math.floor(minute / 15)}`;
    let offset = this.offsets.get(bucket);
    if (offset === undefined) {
      const utcMinute = ((minute % 1440) + 1440) % 1440;
      offset = minutesOfDay(zone, minute * 60_000) - utcMinute;
      if (this.offsets.size >= 4096) this.offsets.clear();
      this.offsets.set(bucket, offset);
    }
    return offset;
  }
}

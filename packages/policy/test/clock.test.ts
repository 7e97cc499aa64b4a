import { describe, expect, test } from 'vitest';
import { parseTimeWindow } from '../src/index.js';
import { ZoneClock, minutesOfDay, zoneForKey, zoneKey } from '../src/model/clock.js';
import { inTimeWindow } from '../src/model/time-window.js';
import { normalizeSourceIp } from '../src/model/ip.js';

describe('time windows - parsing', () => {
  test('time windows - a day window', () => {
    expect(parseTimeWindow('08:00-20:00 Asia/Shanghai')).toEqual({
      start: 480,
      end: 1200,
      zone: 'Asia/Shanghai',
    });
  });

  test('time windows - across midnight, and up to midnight', () => {
    expect(parseTimeWindow('22:00-06:00 Europe/Berlin')).toEqual({
      start: 1320,
      end: 360,
      zone: 'Europe/Berlin',
    });
    expect(parseTimeWindow('18:00-24:00 UTC')).toEqual({ start: 1080, end: 1440, zone: 'UTC' });
    expect(parseTimeWindow('18:00-00:00 UTC')).toEqual({ start: 1080, end: 0, zone: 'UTC' });
  });

  test('time windows - impossible times are named', () => {
    expect(parseTimeWindow('24:00-06:00 UTC')).toBe(
      '"24:00-06:00 UTC": start 24:00 is not a time of day (00:00-23:59)',
    );
    expect(parseTimeWindow('08:00-20:60 UTC')).toBe(
      '"08:00-20:60 UTC": end 20:60 is not a time of day (00:00-24:00)',
    );
  });

  test('time windows - membership at the edges', () => {
    const night = { start: 1320, end: 360, zone: 'UTC' };
    expect([1319, 1320, 0, 359, 360].map((m) => inTimeWindow(night, m))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    const toMidnight = { start: 1080, end: 0, zone: 'UTC' };
    expect([1079, 1080, 1439, 0].map((m) => inTimeWindow(toMidnight, m))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});

describe('time windows - clocks', () => {
  test('time windows - local minutes follow daylight saving time', () => {
    expect(minutesOfDay('Europe/Berlin', Date.parse('2025-01-15T21:30:00Z'))).toBe(22 * 60 + 30);
    expect(minutesOfDay('Europe/Berlin', Date.parse('2025-06-15T21:30:00Z'))).toBe(23 * 60 + 30);
    expect(minutesOfDay('Asia/Kolkata', Date.parse('2025-06-15T00:00:00Z'))).toBe(5 * 60 + 30);
  });

  test('time windows - a clock reads every zone', () => {
    const clock = new ZoneClock([
      { zone: 'Asia/Shanghai', key: 'Asia_Shanghai' },
      { zone: 'America/Port-au-Prince', key: zoneKey('America/Port-au-Prince') },
    ]);
    expect(clock.read(Date.parse('2025-06-02T02:00:00Z'))).toEqual({
      Asia_Shanghai: 600,
      America_Port_au_Prince: 22 * 60,
    });
  });

  test('time windows - zone keys are Cedar identifiers and map back', () => {
    expect(zoneKey('Etc/GMT+5')).toBe('Etc_GMT_plus_5');
    expect(zoneKey('Etc/GMT-5')).toBe('Etc_GMT_5');
    expect(zoneForKey('America_Argentina_Salta')).toBe('America/Argentina/Salta');
    expect(zoneForKey('UTC')).toBe('UTC');
    expect(zoneForKey('Nowhere_Land')).toBeUndefined();
  });
});

describe('caller IP - normalisation', () => {
  test('caller IP - accepted forms', () => {
    expect(normalizeSourceIp('10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeSourceIp('::FFFF:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeSourceIp('2001:DB8::1')).toBe('2001:db8::1');
  });

  test('caller IP - rejected forms', () => {
    expect(
      ['010.1.2.3', '10.0.0.0/8', 'fe80::1%eth0', ' 10.1.2.3', '::1.2.3.4', 'localhost'].map(
        normalizeSourceIp,
      ),
    ).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('time windows - clock memo', () => {
  test('time windows - memoised offsets agree with Intl across a year, DST changes and odd offsets', () => {
    const zones = [
      'Europe/Berlin',
      'Asia/Kolkata',
      'Australia/Lord_Howe',
      'America/St_Johns',
      'Asia/Kathmandu',
    ];
    const clock = new ZoneClock(zones.map((zone) => ({ zone, key: zoneKey(zone) })));
    const start = Date.parse('2025-01-01T00:00:00Z');
    for (let t = start; t < start + 366 * 86_400_000; t += 37 * 60_000 + 13_000) {
      const reading = clock.read(t);
      for (const zone of zones) expect(reading[zoneKey(zone)]).toBe(minutesOfDay(zone, t));
    }
  });
});

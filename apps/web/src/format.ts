import type { ReleaseType } from '@releases/contract/wire';

/** Formatting for people, in the browser's own language. */

// Release dates are calendar dates: formatted in UTC so no time zone moves them by a day.
const calendarDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const moment = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatReleaseDate(date: string): string {
  const parsed = new Date(`${date}T00:00:00.000Z`);
  return Number.isNaN(parsed.getTime()) ? date : calendarDate.format(parsed);
}

export function formatMoment(iso: string): string {
  const parsed = new Date(iso);
  return Number.isNaN(parsed.getTime()) ? iso : moment.format(parsed);
}

const releaseTypeNames: Record<ReleaseType, string> = {
  single: 'Single',
  album: 'Album',
  ep: 'EP',
  compilation: 'Compilation',
};

export function formatReleaseType(type: ReleaseType): string {
  return releaseTypeNames[type];
}

let languageNames: Intl.DisplayNames | undefined;

/** `ja` → `Japanese`; a tag the platform does not know stays as it is. */
export function languageName(tag: string): string {
  try {
    languageNames ??= new Intl.DisplayNames(undefined, { type: 'language' });
    return languageNames.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

const wholeNumber = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** `1 release`, `1,234 releases`: the count grouped the way the browser's language writes numbers. */
export function plural(count: number, one: string, many: string): string {
  return `${wholeNumber.format(count)} ${count === 1 ? one : many}`;
}

const relativeUnits: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];
let relativeFormat: Intl.RelativeTimeFormat | undefined;

/** `2 hours ago`, `in 3 days`, `just now`: how far a moment is from `now`, in the largest unit that fits. */
export function formatRelative(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const difference = at - now;
  if (Math.abs(difference) < 60_000) return 'just now';
  relativeFormat ??= new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of relativeUnits) {
    if (Math.abs(difference) >= size) return relativeFormat.format(Math.trunc(difference / size), unit);
  }
  return 'just now';
}

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

/** The calendar day `days` from `now`, as a person reads it (`12 March 2026`). */
export function formatDaysFromNow(days: number, now: number = Date.now()): string {
  return dayFormat.format(new Date(now + days * 24 * 3600_000));
}

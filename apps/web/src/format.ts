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

export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

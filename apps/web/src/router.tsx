import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/**
 * A router of a few lines over the History API: four routes do not need a library, and every kilobyte
 * counts against the first page's budget. `navigate` pushes (or replaces) an entry and tells subscribers;
 * the browser's Back and Forward arrive as `popstate`.
 */

export interface AppLocation {
  pathname: string;
  search: string;
}

const navigated = 'releases:navigate';

/**
 * Each history entry gets an id in its state, so a page can keep what it showed there (the releases list
 * and its scroll position) and put it back when Back or Forward returns to that entry.
 */
interface EntryState {
  entry: string;
}
let entryCounter = 0;
function newEntryId(): string {
  entryCounter += 1;
  return `${Date.now().toString(36)}-${entryCounter}`;
}
function entryOf(state: unknown): string | undefined {
  return typeof state === 'object' && state !== null && typeof (state as EntryState).entry === 'string'
    ? (state as EntryState).entry
    : undefined;
}

let currentEntry: string | undefined;
let poppedEntry = false;
const positions = new Map<string, number>();
/** The URL each entry was reached from by a link or a choice (pushed), for "Back to the results". */
const cameFrom = new Map<string, string>();

/** The id of the history entry being shown, given one when it has none (the first page load). */
export function historyEntry(): string {
  const known = entryOf(window.history.state);
  if (known) return (currentEntry = known);
  const id = newEntryId();
  window.history.replaceState({ ...(window.history.state as object | null), entry: id }, '');
  return (currentEntry = id);
}

/**
 * Where the page was scrolled when its entry was left, for Back and Forward; undefined if never left. Kept
 * in memory, and in the entry's own history state too, so it also survives leaving the app (another site,
 * a reload) and coming back.
 */
export function savedScrollPosition(entry: string): number | undefined {
  const remembered = positions.get(entry);
  if (remembered !== undefined) return remembered;
  const state = window.history.state as { entry?: unknown; scroll?: unknown } | null;
  return state?.entry === entry && typeof state.scroll === 'number' ? state.scroll : undefined;
}

/** Adds to the current history entry's state (what a page needs to show it again after a reload or Back). */
export function updateEntryState(patch: Record<string, unknown>): void {
  const state = (window.history.state as Record<string, unknown> | null) ?? {};
  window.history.replaceState({ ...state, ...patch }, '');
}

/** The current history entry's state. */
export function entryState(): Record<string, unknown> {
  return (window.history.state as Record<string, unknown> | null) ?? {};
}

/**
 * The releases list's URL when the entry being shown was opened from it (so `history.back()` returns to it),
 * else undefined (opened from a shared link, or another page).
 */
export function arrivedFromList(): string | undefined {
  const from = cameFrom.get(currentEntry ?? historyEntry());
  if (from === undefined) return undefined;
  return new URL(from, window.location.origin).pathname === '/' ? from : undefined;
}

/** Whether the latest change of location came from Back or Forward (not from a link or a choice). */
export function arrivedByHistory(): boolean {
  return poppedEntry;
}

if (typeof window !== 'undefined') {
  // Registered at start, before any component's listener: the position of the entry being left is still
  // the page's own when this runs.
  // Leaving the app (a link to another site, a reload): the position goes into the entry's state.
  // Also kept while scrolling (once it stops: browsers limit how often an entry's state may change), since
  // some ways of leaving never run `pagehide` handlers to the end.
  let scrollTimer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener(
    'scroll',
    () => {
      clearTimeout(scrollTimer);
      scrollTimer = setTimeout(() => updateEntryState({ scroll: window.scrollY }), 250);
    },
    { passive: true },
  );
  window.addEventListener('pagehide', () => updateEntryState({ scroll: window.scrollY }));
  window.addEventListener('popstate', (event) => {
    if (currentEntry) positions.set(currentEntry, window.scrollY);
    currentEntry = entryOf(event.state) ?? historyEntry();
    poppedEntry = true;
  });
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(navigated, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(navigated, onChange);
  };
}

let current: AppLocation | undefined;
/** The same object while the URL is the same, as `useSyncExternalStore` requires. */
function snapshot(): AppLocation {
  const { pathname, search } = window.location;
  if (current?.pathname !== pathname || current.search !== search) current = { pathname, search };
  return current;
}

export function useLocation(): AppLocation {
  return useSyncExternalStore(subscribe, snapshot);
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = new URL(to, window.location.href);
  if (url.origin !== window.location.origin) {
    window.location.assign(url);
    return;
  }
  const target = `${url.pathname}${url.search}${url.hash}`;
  const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
  if (target === here) return;
  const newPage = url.pathname !== window.location.pathname;
  const leaving = currentEntry ?? historyEntry();
  positions.set(leaving, window.scrollY);
  if (!options.replace) updateEntryState({ scroll: window.scrollY });
  poppedEntry = false;
  if (options.replace) {
    window.history.replaceState({ ...entryState(), entry: leaving }, '', target);
  } else {
    const entry = newEntryId();
    cameFrom.set(entry, here);
    window.history.pushState({ entry }, '', target);
    currentEntry = entry;
  }
  // A new page starts at its top; a changed query (a filter) keeps the reader where they are.
  if (newPage) window.scrollTo(0, 0);
  window.dispatchEvent(new Event(navigated));
}

/**
 * Where to go after signing in, from `?next=`: only a page of this site, else the releases page. The URL is
 * parsed as the browser will parse it and judged by its origin, never by the raw string: the URL parser drops
 * tabs and newlines and reads `\\` as `/`, so `/\t/evil.example` and `/\\evil.example` both lead off the
 * site. What is returned is the parsed path (never one that starts `//`), so what was judged is what is
 * followed.
 */
export function safeReturnPath(candidate: string | null, origin: string = window.location.origin): string {
  if (!candidate) return '/';
  let url: URL;
  try {
    url = new URL(candidate, origin);
  } catch {
    return '/';
  }
  if (url.origin !== origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return '/';
  // `/..//evil.example` parses to the path `//evil.example`, which read again is another host.
  if (url.pathname.startsWith('//')) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}

type LinkProps = { to: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>;

/** An ordinary link (middle-click, copy, open in new tab all work) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
    if (event.defaultPrevented || event.button !== 0 || modified || rest.target) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...rest} href={to} onClick={handleClick} />;
}

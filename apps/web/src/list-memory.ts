import type { Release } from './api.js';
import { BoundedMemory } from './bounded-memory.js';

/**
 * What the releases list showed in each history entry (the pages loaded with "Load more", the release that was
 * opened), so Back from a release page, or from anywhere, returns to the same list at the same place instead
 * of its first page at the top. In memory only: nothing about browsing goes to storage. A handful of entries
 * is plenty; the oldest are forgotten first.
 */
export interface RememberedList {
  /** The query (as its URL form) the list answers. */
  key: string;
  releases: Release[];
  nextCursor: string;
  /** The release whose page was opened from here: it gets the focus back. */
  focusId?: string | undefined;
}

const memory = new BoundedMemory<RememberedList>({ max: 20 });

export function rememberList(entry: string, list: RememberedList): void {
  memory.set(entry, list);
}

export function recallList(entry: string, key: string): RememberedList | undefined {
  const list = memory.get(entry);
  return list?.key === key ? list : undefined;
}

/** Notes which release was opened from the list in this entry. */
export function rememberOpened(entry: string, releaseId: string): void {
  const list = memory.get(entry);
  if (list) list.focusId = releaseId;
}

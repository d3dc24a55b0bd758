import { searchableText, searchTokens, startKeys, tokenKeys } from '../../catalogue/search-text.js';
import { searchKinds, type TagRow } from '../schema.js';

/** What a release's search index is made from. */
export interface SearchedFields {
  id: string;
  title: string;
  artist: string;
  release_date: string;
}

/** A release's stored search text and its `release_tags` rows of the search kinds (`catalogue/search-text.ts`). */
export interface SearchIndexRows {
  search_title: string;
  search_artist: string;
  tags: TagRow[];
}

export function searchIndexRows(release: SearchedFields): SearchIndexRows {
  const search_title = searchableText(release.title);
  const search_artist = searchableText(release.artist);
  const tags: TagRow[] = [];
  const add = (kind: number, keys: Iterable<string>) => {
    for (const value_key of keys) {
      tags.push({ kind, value_key, release_date: release.release_date, release_id: release.id });
    }
  };
  add(searchKinds.titleWord, tokenKeys(searchTokens(release.title)));
  add(searchKinds.artistWord, tokenKeys(searchTokens(release.artist)));
  add(searchKinds.titleStart, startKeys(search_title));
  return { search_title, search_artist, tags };
}

import { limits } from '@releases/contract/wire';
import { useId, useState } from 'react';
import type { FacetValue } from '../api.js';
import { plural } from '../format.js';

export interface FacetFilterProps {
  /** The group's accessible name (SPEC §9: `Voice banks`, `Genres`, `Languages`). */
  label: string;
  /** Label of the search box, in the singular (`Find a voice bank`): it must not contain `label`. */
  searchLabel: string;
  /** `undefined` while the facets load. Counts are in context: over the search and the other filters. */
  options: FacetValue[] | undefined;
  /** The counts answer an earlier query (the current one's are on their way): shown dimmed. */
  stale?: boolean;
  chosen: readonly string[];
  onToggle: (value: string) => void;
  /** How a value reads to people (a language tag becomes its name). */
  describe?: (value: string) => string;
}

/** Lists longer than this get a search box. */
const searchableFrom = 8;

/**
 * A multi-select as a group of checkboxes: native controls, so Tab, Space and every assistive technology
 * already know how to use it. Each checkbox is named by its value alone (tests and screen-reader users look
 * for `Hatsune Miku`), and its release count is its description.
 */
export function FacetFilter({
  label,
  searchLabel,
  options,
  stale = false,
  chosen,
  onToggle,
  describe = (v) => v,
}: FacetFilterProps) {
  const id = useId();
  const [search, setSearch] = useState('');
  const chosenKeys = new Set(chosen.map((value) => value.toLowerCase()));
  // A chosen value the catalogue does not list (a shared link from another day) can still be unchosen.
  const listed = new Set(options?.map((option) => option.value.toLowerCase()));
  const all = [
    ...(options ?? []),
    ...chosen.filter((v) => !listed.has(v.toLowerCase())).map((value) => ({ value, count: 0 })),
  ];
  const needle = search.trim().toLowerCase();
  const shown = needle ? all.filter(({ value }) => `${value} ${describe(value)}`.toLowerCase().includes(needle)) : all;
  const full = chosen.length >= limits.maxFilterValues;

  return (
    <fieldset className="facet" aria-labelledby={`${id}-legend`} aria-describedby={full ? `${id}-full` : undefined}>
      <legend id={`${id}-legend`}>{label}</legend>
      {options === undefined ? (
        <p className="facet-note facet-loading">Loading…</p>
      ) : (
        <>
          {all.length >= searchableFrom && (
            <div className="facet-search">
              <label htmlFor={`${id}-search`}>{searchLabel}</label>
              <input
                id={`${id}-search`}
                type="search"
                value={search}
                autoComplete="off"
                spellCheck={false}
                onChange={(event) => setSearch(event.target.value)}
              />
            </div>
          )}
          {full && (
            <p className="facet-note" id={`${id}-full`}>
              At most {limits.maxFilterValues} can be chosen.
            </p>
          )}
          {shown.length === 0 ? (
            <p className="facet-note">
              {all.length === 0 ? 'None in the catalogue.' : `Nothing matches “${search.trim()}”.`}
            </p>
          ) : (
            <ul className="facet-options" data-stale={stale || undefined}>
              {shown.map(({ value, count }, index) => {
                const optionId = `${id}-${index}`;
                const checked = chosenKeys.has(value.toLowerCase());
                return (
                  <li key={value} data-none={count === 0 || undefined}>
                    <label className="facet-option">
                      <input
                        type="checkbox"
                        checked={checked}
                        disabled={full && !checked}
                        aria-labelledby={`${optionId}-name`}
                        aria-describedby={`${optionId}-count`}
                        onChange={() => onToggle(value)}
                      />
                      <span id={`${optionId}-name`} className="facet-name">
                        {describe(value)}
                      </span>
                      <span className="facet-count" aria-hidden="true">
                        {count}
                      </span>
                      <span id={`${optionId}-count`} className="visually-hidden">
                        {plural(count, 'release', 'releases')}
                      </span>
                    </label>
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
    </fieldset>
  );
}

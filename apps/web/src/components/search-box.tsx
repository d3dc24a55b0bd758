import { searchTextProblem } from '@releases/contract/wire';
import { useId, useState } from 'react';

export interface SearchBoxProps {
  /** The search the page shows (from its address), trimmed; `''` for none. */
  value: string;
  /** Each edit, as typed, once it is a search the API takes (or empty). */
  onSearch: (text: string) => void;
  /** Enter: search now rather than after the pause. */
  onSubmit: () => void;
}

/**
 * The releases page's search box (SPEC §9: labelled `Search`, role `searchbox`). What is typed is kept here as
 * typed (a trailing space survives while one types the next word); the page's address holds it trimmed. When
 * the address changes by other means (Back, a link), the box shows the address's search. Text the API would
 * refuse (over 100 characters, more than 8 words, control characters) is not sent: the box says why instead.
 */
export function SearchBox({ value, onSearch, onSubmit }: SearchBoxProps) {
  const id = useId();
  const [text, setText] = useState(value);
  const [shownValue, setShownValue] = useState(value);
  if (value !== shownValue) {
    setShownValue(value);
    if (text.trim() !== value) setText(value);
  }
  const trimmed = text.trim();
  const problem = trimmed ? searchTextProblem(trimmed) : undefined;

  return (
    <form
      role="search"
      className="search"
      onSubmit={(event) => {
        event.preventDefault();
        if (!problem) onSubmit();
      }}
    >
      <label htmlFor={`${id}-q`}>Search</label>
      <input
        id={`${id}-q`}
        type="search"
        value={text}
        autoComplete="off"
        spellCheck={false}
        enterKeyHint="search"
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-note`}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          const words = next.trim();
          if (!words || !searchTextProblem(words)) onSearch(next);
        }}
      />
      <p id={`${id}-note`} className={problem ? 'field-error' : 'hint'} aria-live="polite">
        {problem ? `Search ${problem}.` : 'Titles and artists; every word must match.'}
      </p>
    </form>
  );
}

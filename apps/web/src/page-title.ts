import { useEffect } from 'react';

let headingFocusPending = false;

/**
 * Moves the focus to the page's heading, now if it is there, else as soon as the page shows it (a page
 * loaded in its own chunk renders after a moment): a screen reader announces where the user is, and the
 * next Tab starts from the top of the new content.
 */
export function focusPageHeading(): void {
  const heading = document.querySelector<HTMLElement>('main h1');
  headingFocusPending = heading === null;
  heading?.focus({ preventScroll: true });
}

/** Sets the document title, which screen readers announce on each new page and browsers show in history. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Releases`;
  }, [title]);
  useEffect(() => {
    if (!headingFocusPending) return;
    headingFocusPending = false;
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, []);
}

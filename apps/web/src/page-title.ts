import { useEffect } from 'react';

/** Sets the document title, which screen readers announce on each new page and browsers show in history. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Releases`;
  }, [title]);
}

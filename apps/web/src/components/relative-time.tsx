import { formatMoment, formatRelative } from '../format.js';
import { useNow } from '../use-now.js';

/**
 * A moment as people say it ("2 hours ago"), kept current while the page is open, with the exact date and
 * time beside it for screen readers (and on hover), so nothing is lost by rounding.
 */
export function RelativeTime({ iso }: { iso: string }) {
  const now = useNow();
  const exact = formatMoment(iso);
  return (
    <>
      <time dateTime={iso} title={exact}>
        {formatRelative(iso, now)}
      </time>
      <span className="visually-hidden"> ({exact})</span>
    </>
  );
}

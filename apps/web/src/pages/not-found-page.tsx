import { usePageTitle } from '../page-title.js';
import { Link } from '../router.js';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <div className="narrow-page">
      <h1 tabIndex={-1}>Page not found</h1>
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Browse the releases</Link>
      </p>
    </div>
  );
}

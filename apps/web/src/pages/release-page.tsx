import { NotFoundError } from '@releases/client';
import { useCallback, useEffect, useState } from 'react';
import { errorMessage, isSignedOutError, retryDelay, type Release } from '../api.js';
import { useApi } from '../api-context.js';
import { Cover, isWebUrl, siteName } from '../components/release-card.js';
import { RetryCountdown } from '../components/retry-countdown.js';
import { formatMoment, formatReleaseDate, formatReleaseType, languageName, plural } from '../format.js';
import { usePageTitle } from '../page-title.js';
import { arrivedFromList, Link } from '../router.js';
import { routes } from '../routes.js';
import { useOptionalSession } from '../session.js';

type State =
  | { status: 'loading' }
  | { status: 'ready'; release: Release }
  | { status: 'not-found' }
  | { status: 'error'; error: string; retryAt?: number | undefined };

/**
 * `/releases/{id}`: one release with all its fields and links. "Back to the results" goes back in history
 * when the results are the previous entry, so the list comes back as it was (its pages and scroll
 * position); opened from elsewhere (a shared link), it goes to the list's first page.
 */
export function ReleasePage({ id }: { id: string }) {
  const api = useApi();
  const signedOut = useOptionalSession()?.signedOut;
  const [attempt, setAttempt] = useState(0);
  const [answer, setAnswer] = useState<{ attempt: number; state: State } | undefined>();
  // An answer belongs to the attempt that asked: a retry shows "loading" until its own answer comes.
  const state: State = answer?.attempt === attempt ? answer.state : { status: 'loading' };
  const setState = useCallback((next: State) => setAnswer({ attempt, state: next }), [attempt]);
  const [fromList] = useState(() => arrivedFromList());
  usePageTitle(
    state.status === 'ready' ? state.release.title : state.status === 'not-found' ? 'Release not found' : 'Release',
  );

  useEffect(() => {
    const controller = new AbortController();
    api.release(id, controller.signal).then(
      (release) => setState({ status: 'ready', release }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof NotFoundError) return setState({ status: 'not-found' });
        if (isSignedOutError(error)) {
          // A session cookie that stopped working: the server has cleared it; read on without it.
          signedOut?.();
          return setAttempt((n) => n + 1);
        }
        const wait = retryDelay(error);
        setState({ status: 'error', error: errorMessage(error), retryAt: wait ? Date.now() + wait : undefined });
      },
    );
    return () => controller.abort();
  }, [api, id, signedOut, setState]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  const back = fromList ? (
    <a
      href={fromList}
      className="back-link"
      onClick={(event) => {
        event.preventDefault();
        window.history.back();
      }}
    >
      ← Back to the results
    </a>
  ) : (
    <Link to={routes.releases} className="back-link">
      ← All releases
    </Link>
  );

  return (
    <div className="release-page">
      <p>{back}</p>
      {state.status === 'loading' && (
        <>
          <h1 tabIndex={-1}>
            <span className="visually-hidden">Loading the release…</span>
          </h1>
          <p role="status">Loading the release…</p>
          <div className="release-detail-skeleton" aria-hidden="true" />
        </>
      )}
      {state.status === 'not-found' && (
        <>
          <h1 tabIndex={-1}>Release not found</h1>
          <p>There is no release with the id “{id}”. It may have been removed from the catalogue.</p>
        </>
      )}
      {state.status === 'error' && (
        <>
          <h1 tabIndex={-1}>Release</h1>
          {state.retryAt ? (
            <RetryCountdown what="The release could not be loaded" at={state.retryAt} onRetry={retry} />
          ) : (
            <div className="problem" role="alert">
              <p>The release could not be loaded: {state.error}</p>
              <button type="button" onClick={retry}>
                Retry
              </button>
            </div>
          )}
        </>
      )}
      {state.status === 'ready' && <ReleaseDetails release={state.release} />}
    </div>
  );
}

function ReleaseDetails({ release }: { release: Release }) {
  // The heading shown while loading is gone: its focus (given on arrival) passes to the title.
  useEffect(() => {
    if (document.activeElement === document.body || document.activeElement === null) {
      document.getElementById('release-title')?.focus({ preventScroll: true });
    }
  }, []);
  const links = release.links.filter((link) => isWebUrl(link.url));
  return (
    <article className="release-detail" aria-labelledby="release-title">
      <Cover url={release.cover_url} size={200} />
      <div>
        <h1 id="release-title" tabIndex={-1}>
          {release.title}
        </h1>
        <p className="release-artist">{release.artist}</p>
        <dl className="release-fields">
          <div>
            <dt>Released</dt>
            <dd>
              <time dateTime={release.release_date}>{formatReleaseDate(release.release_date)}</time>
            </dd>
          </div>
          <div>
            <dt>Type</dt>
            <dd>{formatReleaseType(release.release_type)}</dd>
          </div>
          <div>
            <dt>Tracks</dt>
            <dd>{plural(release.track_count, 'track', 'tracks')}</dd>
          </div>
          <div>
            <dt>Voice banks</dt>
            <dd>{release.vocaloid_banks.join(', ') || 'None listed'}</dd>
          </div>
          <div>
            <dt>Genres</dt>
            <dd>{release.genres.join(', ') || 'None listed'}</dd>
          </div>
          <div>
            <dt>Languages</dt>
            <dd>{release.languages.map((tag) => `${languageName(tag)} (${tag})`).join(', ') || 'None listed'}</dd>
          </div>
          <div>
            <dt>Id</dt>
            <dd>
              <code>{release.id}</code>
            </dd>
          </div>
          <div>
            <dt>Added</dt>
            <dd>
              <time dateTime={release.created_at}>{formatMoment(release.created_at)}</time>
            </dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>
              <time dateTime={release.updated_at}>{formatMoment(release.updated_at)}</time>
            </dd>
          </div>
        </dl>
        <h2>Listen and read more</h2>
        {links.length > 0 ? (
          <ul className="release-detail-links">
            {links.map((link) => (
              <li key={link.url}>
                <a href={link.url} rel="noopener noreferrer">
                  {siteName(link.site)}
                </a>{' '}
                <span className="link-host">{hostOf(link.url)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p>No links for this release.</p>
        )}
      </div>
    </article>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

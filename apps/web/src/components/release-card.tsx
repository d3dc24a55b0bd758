import { useId, useState } from 'react';
import type { Release } from '../api.js';
import { formatReleaseDate, formatReleaseType, languageName, plural } from '../format.js';
import { Link } from '../router.js';
import { releasePath } from '../routes.js';

const siteNames: Record<string, string> = {
  youtube: 'YouTube',
  niconico: 'niconico',
  vocadb: 'VocaDB',
  spotify: 'Spotify',
  bandcamp: 'Bandcamp',
  soundcloud: 'SoundCloud',
  apple_music: 'Apple Music',
  piapro: 'piapro',
};

export function siteName(site: string): string {
  return siteNames[site.toLowerCase()] ?? site.charAt(0).toUpperCase() + site.slice(1);
}

/** Only web links: a catalogue row cannot turn a card into a `javascript:` link. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/**
 * The cover, in a box of fixed size whether or not there is an image, whether it has loaded or failed: a
 * card never changes height after it is shown. Covers come from other hosts over https only (the page's CSP
 * allows `img-src https:` and nothing less safe); no referrer is sent to them.
 */
export function Cover({ url, size = 96 }: { url: string | null; size?: number }) {
  const [failed, setFailed] = useState(false);
  return (
    <div className="cover" aria-hidden="true">
      {url && url.startsWith('https://') && !failed ? (
        <img
          src={url}
          alt=""
          width={size}
          height={size}
          loading="lazy"
          decoding="async"
          referrerPolicy="no-referrer"
          onError={() => setFailed(true)}
        />
      ) : (
        <span className="cover-placeholder">♪</span>
      )}
    </div>
  );
}

export interface ReleaseCardProps {
  release: Release;
  id?: string;
  /** Called when the release's own page is opened from the card (the list remembers it for Back). */
  onOpen?: () => void;
}

export function ReleaseCard({ release, id, onOpen }: ReleaseCardProps) {
  const titleId = useId();
  const links = release.links.filter((link) => isWebUrl(link.url));
  return (
    <article className="release" aria-labelledby={titleId} id={id} tabIndex={-1}>
      <Cover url={release.cover_url} />
      <div className="release-body">
        <h2 id={titleId} className="release-title">
          <Link to={releasePath(release.id)} onClick={onOpen}>
            {release.title}
          </Link>
        </h2>
        <p className="release-artist">{release.artist}</p>
        <p className="release-meta">
          <time dateTime={release.release_date}>{formatReleaseDate(release.release_date)}</time>
          <span aria-hidden="true"> · </span>
          <span>{formatReleaseType(release.release_type)}</span>
          <span aria-hidden="true"> · </span>
          <span>{plural(release.track_count, 'track', 'tracks')}</span>
        </p>
        <dl className="release-tags">
          <div>
            <dt>Vocals</dt>
            <dd>{release.vocaloid_banks.join(', ')}</dd>
          </div>
          {release.genres.length > 0 && (
            <div>
              <dt>Genre</dt>
              <dd>{release.genres.join(', ')}</dd>
            </div>
          )}
          {release.languages.length > 0 && (
            <div>
              <dt>Language</dt>
              <dd>{release.languages.map(languageName).join(', ')}</dd>
            </div>
          )}
        </dl>
        {links.length > 0 && (
          <ul className="release-links">
            {links.map((link) => (
              <li key={link.url}>
                <a href={link.url} rel="noopener noreferrer">
                  {siteName(link.site)}
                  <span className="visually-hidden">: {release.title}</span>
                </a>
              </li>
            ))}
          </ul>
        )}
      </div>
    </article>
  );
}

import { useId, useState, type ReactNode } from 'react';
import { errorMessage, type ApiKey } from '../api.js';
import { formatMoment } from '../format.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { RelativeTime } from './relative-time.js';
import { useNow } from '../use-now.js';

export type KeyStatus = 'active' | 'revoked' | 'expired';

export function keyStatus(key: ApiKey, now: number = Date.now()): KeyStatus {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && Date.parse(key.expires_at) <= now) return 'expired';
  return 'active';
}

const statusText: Record<KeyStatus, string> = { active: 'Active', revoked: 'Revoked', expired: 'Expired' };

function Moment({ iso, otherwise }: { iso: string | null; otherwise: string }) {
  return iso ? <time dateTime={iso}>{formatMoment(iso)}</time> : <>{otherwise}</>;
}

export interface KeyListProps {
  keys: ApiKey[];
  /** Revokes a key; resolves once the server has. */
  onRevoke: (key: ApiKey) => Promise<void>;
}

const columns = ['Name', 'Start', 'Created', 'Last used', 'Expires', 'Status'] as const;

/**
 * The account's keys, newest first: name, start, created, last used, expires and status, and for an active
 * key a Revoke button that asks first. Active keys come first; revoked and expired ones are folded under a
 * heading of their own, since they are history rather than something to act on.
 *
 * Each key is a list item with its name as a heading and its facts as a description list, which reads the
 * same to a screen reader at any width; on wide screens the stylesheet lines the items up as the rows of a
 * table under one row of column names (hidden from assistive technology, which has each fact's own term).
 */
export function KeyList({ keys, onRevoke }: KeyListProps) {
  const id = useId();
  const [confirming, setConfirming] = useState<ApiKey | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [announcement, setAnnouncement] = useState('');
  // A key revoked here stays in its row (now "Revoked"), where the person is looking; it joins the folded
  // ones the next time the list is shown.
  const [revokedHere, setRevokedHere] = useState<ReadonlySet<string>>(new Set());

  const close = () => {
    if (busy) return;
    setConfirming(undefined);
    setError(undefined);
  };

  const confirm = async () => {
    if (!confirming || busy) return;
    const key = confirming;
    setBusy(true);
    setError(undefined);
    try {
      await onRevoke(key);
      setRevokedHere((ids) => new Set(ids).add(key.id));
      setConfirming(undefined);
      setAnnouncement(`The key “${key.name}” is revoked.`);
      // Its Revoke button is gone: the focus goes to the key's name rather than to the top of the page.
      requestAnimationFrame(() => document.getElementById(`${id}-${key.id}`)?.focus());
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  const now = useNow(60_000);
  const shownFirst = (key: ApiKey) => keyStatus(key, now) === 'active' || revokedHere.has(key.id);
  const active = keys.filter(shownFirst);
  const past = keys.filter((key) => !shownFirst(key));

  const row = (key: ApiKey, level: 'h3' | 'h4'): ReactNode => {
    const status = keyStatus(key, now);
    const Heading = level;
    return (
      <li key={key.id} className="key-item" data-status={status}>
        <Heading id={`${id}-${key.id}`} tabIndex={-1} className="key-name">
          {key.name}
        </Heading>
        <dl className="key-facts">
          <div>
            <dt>Start</dt>
            <dd>
              <code>{key.start}…</code>
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <Moment iso={key.created_at} otherwise="" />
            </dd>
          </div>
          <div>
            <dt>Last used</dt>
            <dd>{key.last_used_at ? <RelativeTime iso={key.last_used_at} /> : 'Never'}</dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>
              <Moment iso={key.expires_at} otherwise="Never" />
            </dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd className={`status status-${status}`}>
              {statusText[status]}
              {status === 'revoked' && key.revoked_at && (
                <>
                  {' '}
                  <Moment iso={key.revoked_at} otherwise="" />
                </>
              )}
            </dd>
          </div>
        </dl>
        <div className="key-action">
          {status === 'active' && (
            <button
              type="button"
              className="danger"
              aria-describedby={`${id}-${key.id}`}
              onClick={() => setConfirming(key)}
            >
              Revoke
            </button>
          )}
        </div>
      </li>
    );
  };

  return (
    <>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {keys.length === 0 ? (
        <p>You have no API keys yet.</p>
      ) : active.length === 0 ? (
        <p>You have no active keys.</p>
      ) : (
        <div className="key-table">
          <div className="key-columns" aria-hidden="true">
            {columns.map((column) => (
              <span key={column}>{column}</span>
            ))}
            <span />
          </div>
          <ul className="key-list">{active.map((key) => row(key, 'h3'))}</ul>
        </div>
      )}
      {past.length > 0 && (
        <section className="past-keys" aria-labelledby={`${id}-past`}>
          <h3 id={`${id}-past`}>Revoked and expired keys</h3>
          <details>
            <summary>
              {past.length === 1
                ? 'Show the 1 key that no longer works'
                : `Show all ${past.length} keys that no longer work`}
            </summary>
            <ul className="key-list key-list-past">{past.map((key) => row(key, 'h4'))}</ul>
          </details>
        </section>
      )}
      <ConfirmDialog
        open={confirming !== undefined}
        title="Revoke this key?"
        confirmLabel="Revoke"
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onCancel={close}
      >
        {confirming && (
          <p>
            Programs using “{confirming.name}” (<code>{confirming.start}…</code>) stop working within seconds. This
            cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}

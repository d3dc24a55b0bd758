import { useId, useState } from 'react';
import { errorMessage, type ApiKey } from '../api.js';
import { formatMoment } from '../format.js';
import { ConfirmDialog } from './confirm-dialog.js';

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

/**
 * The account's keys, newest first: name, start, created, last used, expires and status, and for an active
 * key a Revoke button that asks first. A list of small cards rather than a table: it reads the same at
 * 360 px as on a desktop.
 */
export function KeyList({ keys, onRevoke }: KeyListProps) {
  const id = useId();
  const [confirming, setConfirming] = useState<ApiKey | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [announcement, setAnnouncement] = useState('');

  const close = () => {
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

  return (
    <>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {keys.length === 0 ? (
        <p>You have no API keys yet.</p>
      ) : (
        <ul className="key-list">
          {keys.map((key) => {
            const status = keyStatus(key);
            return (
              <li key={key.id} className="key-item" data-status={status}>
                <h3 id={`${id}-${key.id}`} tabIndex={-1} className="key-name">
                  {key.name}
                </h3>
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
                    <dd>
                      <Moment iso={key.last_used_at} otherwise="Never" />
                    </dd>
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
              </li>
            );
          })}
        </ul>
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

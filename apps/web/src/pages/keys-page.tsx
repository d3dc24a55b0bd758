import { headerNames, limits } from '@releases/contract/wire';
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage, fieldErrors, isSignedOutError, type ApiKey, type CreatedApiKey } from '../api.js';
import { useApi } from '../api-context.js';
import { BusyButton } from '../components/busy-button.js';
import { Field } from '../components/field.js';
import { KeyList, keyStatus } from '../components/key-list.js';
import { NewKey } from '../components/new-key.js';
import { fieldsAlert } from '../form-checks.js';
import { formatDaysFromNow } from '../format.js';
import { usePageTitle } from '../page-title.js';
import { useSignedInOnly } from '../signed-in-only.js';
import { useSession } from '../session.js';
import { useNow } from '../use-now.js';

/** The lifetimes offered, in days; `''` is a key that never expires. 90 days is chosen unless one picks another. */
const lifetimePresets = ['7', '30', '90', '365', ''] as const;
const defaultLifetime = '90';

/** Reads a lifetime: empty is "never", anything else must be a whole number in range. */
export function parseLifetime(text: string): { days: number | undefined } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { days: undefined };
  const days = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || days < 1 || days > limits.maxKeyLifetimeDays) {
    return { problem: `Enter a whole number of days from 1 to ${limits.maxKeyLifetimeDays}, or leave it empty.` };
  }
  return { days };
}

const fieldLabels = { name: 'Name', expires_in_days: 'Expires in (days)' };

type KeysState = { status: 'loading' } | { status: 'ready'; keys: ApiKey[] } | { status: 'error'; error: string };

/** The keys screen proper, for a signed-in user. */
function KeysManager() {
  const api = useApi();
  const { expired } = useSession();
  const id = useId();
  const now = useNow(60_000);
  const [attempt, setAttempt] = useState(0);
  const [keys, setKeys] = useState<KeysState & { attempt: number }>({ status: 'loading', attempt: 0 });
  const [name, setName] = useState('');
  const [lifetime, setLifetime] = useState<string>(defaultLifetime);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [fields, setFields] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<CreatedApiKey | undefined>();

  /** A 401 means the session ended meanwhile: the app offers to sign in again, over this page. */
  const failed = useCallback(
    (caught: unknown): string => {
      if (isSignedOutError(caught)) {
        expired();
        return 'Your session has ended, so nothing was changed. Sign in again, then try once more: what you typed is still here.';
      }
      return errorMessage(caught);
    },
    [expired],
  );

  useEffect(() => {
    let current = true;
    api.listKeys().then(
      (list) => current && setKeys({ status: 'ready', keys: list, attempt }),
      (caught: unknown) => current && setKeys({ status: 'error', error: failed(caught), attempt }),
    );
    return () => {
      current = false;
    };
  }, [api, attempt, failed]);

  // "Last used" changes while the page is open (a program uses a key): the list is read again every minute
  // while the tab is visible. A failed refresh keeps what is shown.
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      api.listKeys().then(
        (list) => setKeys((state) => (state.status === 'ready' ? { ...state, keys: list } : state)),
        () => undefined,
      );
    }, 60_000);
    return () => clearInterval(timer);
  }, [api]);

  const shownKeys = keys.attempt === attempt ? keys : ({ status: 'loading', attempt } as const);
  const activeCount =
    shownKeys.status === 'ready' ? shownKeys.keys.filter((key) => keyStatus(key, now) === 'active').length : undefined;
  const full = activeCount !== undefined && activeCount >= limits.maxActiveKeysPerUser;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const days = parseLifetime(lifetime);
    const found: Record<string, string> = {};
    if (name.trim() === '') found.name = 'Enter a name for the key, such as “laptop” or “CI”.';
    if ('problem' in days) found.expires_in_days = days.problem;
    if (Object.keys(found).length > 0) {
      setFields(found);
      setError(fieldsAlert(found));
      return;
    }
    if (full) {
      setFields({});
      setError(
        `You have ${limits.maxActiveKeysPerUser} active keys, the most an account may hold. Revoke one to create another.`,
      );
      return;
    }
    setBusy(true);
    setError(undefined);
    setFields({});
    try {
      const expiresInDays = 'days' in days ? days.days : undefined;
      const key = await api.createKey({ name, ...(expiresInDays === undefined ? {} : { expiresInDays }) });
      setCreated(key);
      setName('');
      // The new key heads the list (newest first); its secret stays out of the list.
      const { key: _secret, ...listed } = key;
      setKeys((state) => (state.status === 'ready' ? { ...state, keys: [listed, ...state.keys] } : state));
    } catch (caught) {
      const byField = fieldErrors(caught, fieldLabels);
      setFields(byField);
      setError(fieldsAlert(byField) ?? failed(caught));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (key: ApiKey) => {
    try {
      const revoked = await api.revokeKey(key.id);
      setKeys((state) =>
        state.status === 'ready'
          ? { ...state, keys: state.keys.map((k) => (k.id === revoked.id ? revoked : k)) }
          : state,
      );
    } catch (caught) {
      failed(caught);
      // The list shows the problem's detail in the dialog.
      throw caught;
    }
  };

  const days = parseLifetime(lifetime);
  const lifetimeHint =
    'days' in days && days.days !== undefined
      ? `The key stops working on ${formatDaysFromNow(days.days, now)}.`
      : undefined;

  return (
    <>
      {/* Keyed by the key: a new key starts with its own, uncopied, state. */}
      {created && (
        <NewKey key={created.id} created={created} healthUrl={api.healthUrl()} onDone={() => setCreated(undefined)} />
      )}

      <section className="panel" aria-labelledby={`${id}-create`}>
        <h2 id={`${id}-create`}>Create a key</h2>
        <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
          <Field
            id={`${id}-name`}
            label={fieldLabels.name}
            error={fields.name}
            hint="What the key is for, e.g. “laptop” or “CI”."
            inputProps={{
              type: 'text',
              name: 'name',
              required: true,
              maxLength: limits.maxKeyNameLength,
              autoComplete: 'off',
              value: name,
              onChange: (event) => setName(event.target.value),
            }}
          />
          <div className="field">
            <label htmlFor={`${id}-lifetime`}>{fieldLabels.expires_in_days}</label>
            <select
              id={`${id}-lifetime`}
              name="expires_in_days"
              value={lifetime}
              aria-describedby={`${id}-lifetime-hint${fields.expires_in_days ? ` ${id}-lifetime-error` : ''}`}
              aria-invalid={fields.expires_in_days ? true : undefined}
              onChange={(event) => setLifetime(event.target.value)}
            >
              {lifetimePresets.map((preset) => (
                <option key={preset} value={preset}>
                  {preset === '' ? 'Never' : `${preset} days`}
                </option>
              ))}
            </select>
            {lifetimeHint ? (
              <p id={`${id}-lifetime-hint`} className="hint">
                {lifetimeHint}
              </p>
            ) : (
              <p id={`${id}-lifetime-hint`} className="warning-note">
                <strong>This key never expires.</strong> It works until you revoke it, however long it leaks for. Prefer
                a date: make a new key when it comes.
              </p>
            )}
            {fields.expires_in_days && (
              <p id={`${id}-lifetime-error`} className="field-error">
                {fields.expires_in_days}
              </p>
            )}
          </div>
          <div role="alert" className="form-alert">
            {error && <p className="problem">{error}</p>}
          </div>
          <p role="status" className="visually-hidden">
            {busy ? 'Creating the key…' : ''}
          </p>
          <div>
            <BusyButton type="submit" busy={busy}>
              Create key
            </BusyButton>
          </div>
        </form>
      </section>

      <section className="panel" aria-labelledby={`${id}-list`} aria-busy={shownKeys.status === 'loading'}>
        <h2 id={`${id}-list`}>Your keys</h2>
        {activeCount !== undefined && (
          <p className="key-count">
            {activeCount} of {limits.maxActiveKeysPerUser} active keys
            {full ? ': revoke one to create another.' : ''}
          </p>
        )}
        {shownKeys.status === 'loading' && <p role="status">Loading your keys…</p>}
        {shownKeys.status === 'error' && (
          <div className="problem" role="alert">
            <p>{shownKeys.error}</p>
            <button type="button" onClick={() => setAttempt((n) => n + 1)}>
              Retry
            </button>
          </div>
        )}
        {shownKeys.status === 'ready' && <KeyList keys={shownKeys.keys} onRevoke={revoke} />}
      </section>
    </>
  );
}

/** `/settings/keys`: signed-in users only; anyone else goes to sign in and comes back here after. */
export function KeysPage() {
  usePageTitle('API keys');
  const gate = useSignedInOnly();

  return (
    <div className="keys-page">
      <h1 tabIndex={-1}>API keys</h1>
      <p className="lead">
        A key lets a program call the API as you: send it in the <code>{headerNames.apiKey}</code> header. Keep keys
        secret, give each program its own, and revoke any you no longer use.
      </p>
      {gate ?? <KeysManager />}
    </div>
  );
}

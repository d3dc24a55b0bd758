import { headerNames, limits } from '@releases/contract/wire';
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage, fieldErrors, isSignedOutError, type ApiKey, type CreatedApiKey } from '../api.js';
import { useApi } from '../api-context.js';
import { Field } from '../components/field.js';
import { KeyList } from '../components/key-list.js';
import { NewKey } from '../components/new-key.js';
import { usePageTitle } from '../page-title.js';
import { navigate } from '../router.js';
import { routes } from '../routes.js';
import { useSession } from '../session.js';

const defaultLifetimeDays = 90;

/** Reads the "Expires in (days)" field: empty is "never", anything else must be a whole number in range. */
export function parseLifetime(text: string): { days: number | undefined } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { days: undefined };
  const days = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || days < 1 || days > limits.maxKeyLifetimeDays) {
    return { problem: `Enter a whole number of days from 1 to ${limits.maxKeyLifetimeDays}, or leave it empty.` };
  }
  return { days };
}

type KeysState = { status: 'loading' } | { status: 'ready'; keys: ApiKey[] } | { status: 'error'; error: string };

/** The keys screen proper, for a signed-in user. */
function KeysManager() {
  const api = useApi();
  const { expired } = useSession();
  const id = useId();
  const [attempt, setAttempt] = useState(0);
  const [keys, setKeys] = useState<KeysState & { attempt: number }>({ status: 'loading', attempt: 0 });
  const [name, setName] = useState('');
  const [lifetime, setLifetime] = useState(String(defaultLifetimeDays));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [fields, setFields] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<CreatedApiKey | undefined>();

  /** A 401 means the session ended meanwhile: the page guard sends the user to sign in again. */
  const failed = useCallback(
    (caught: unknown): string => {
      if (isSignedOutError(caught)) expired();
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

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const days = parseLifetime(lifetime);
    if ('problem' in days) {
      setFields({ expires_in_days: days.problem });
      setError(undefined);
      return;
    }
    setBusy(true);
    setError(undefined);
    setFields({});
    try {
      const key = await api.createKey({ name, ...(days.days === undefined ? {} : { expiresInDays: days.days }) });
      setCreated(key);
      setName('');
      // The new key heads the list (newest first); its secret stays out of the list.
      const { key: _secret, ...listed } = key;
      setKeys((state) => (state.status === 'ready' ? { ...state, keys: [listed, ...state.keys] } : state));
    } catch (caught) {
      setFields(fieldErrors(caught));
      setError(failed(caught));
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

  const shownKeys = keys.attempt === attempt ? keys : ({ status: 'loading', attempt } as const);
  return (
    <>
      {created && <NewKey created={created} healthUrl={api.healthUrl()} onDone={() => setCreated(undefined)} />}

      <section className="panel" aria-labelledby={`${id}-create`}>
        <h2 id={`${id}-create`}>Create a key</h2>
        <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
          <Field
            id={`${id}-name`}
            label="Name"
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
          <Field
            id={`${id}-lifetime`}
            label="Expires in (days)"
            error={fields.expires_in_days}
            hint={`1 to ${limits.maxKeyLifetimeDays}; leave it empty for a key that never expires.`}
            inputProps={{
              type: 'text',
              inputMode: 'numeric',
              name: 'expires_in_days',
              autoComplete: 'off',
              value: lifetime,
              onChange: (event) => setLifetime(event.target.value),
            }}
          />
          <div role="alert" className="form-alert">
            {error && <p className="problem">{error}</p>}
          </div>
          <div>
            <button type="submit">Create key</button>
          </div>
        </form>
      </section>

      <section className="panel" aria-labelledby={`${id}-list`} aria-busy={shownKeys.status === 'loading'}>
        <h2 id={`${id}-list`}>Your keys</h2>
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
  const session = useSession();
  const signedOut = session.state.status === 'signed-out';

  useEffect(() => {
    if (!signedOut) return;
    const here = `${window.location.pathname}${window.location.search}`;
    navigate(`${routes.signIn}?next=${encodeURIComponent(here)}`, { replace: true });
  }, [signedOut]);

  return (
    <div className="keys-page">
      <h1 tabIndex={-1}>API keys</h1>
      <p className="lead">
        A key lets a program call the API as you: send it in the <code>{headerNames.apiKey}</code> header. Keep keys
        secret, give each program its own, and revoke any you no longer use.
      </p>
      {session.state.status === 'loading' && <p role="status">Checking your session…</p>}
      {session.state.status === 'unknown' && (
        <div className="problem" role="alert">
          <p>{session.state.error}</p>
          <button type="button" onClick={() => window.location.reload()}>
            Retry
          </button>
        </div>
      )}
      {session.state.status === 'signed-in' && <KeysManager />}
    </div>
  );
}

import { limits } from '@releases/contract/wire';
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage, fieldErrors, isSignedOutError, type ActiveSession, type Api } from '../api.js';
import { useApi } from '../api-context.js';
import { BusyButton } from '../components/busy-button.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Field } from '../components/field.js';
import { PasswordStrength } from '../components/password-strength.js';
import { RelativeTime } from '../components/relative-time.js';
import { currentPasswordProblem, fieldsAlert, newPasswordProblem, problems } from '../form-checks.js';
import { formatMoment } from '../format.js';
import { usePageTitle } from '../page-title.js';
import { navigate } from '../router.js';
import { routes } from '../routes.js';
import { useSession } from '../session.js';
import { useSignedInOnly } from '../signed-in-only.js';

const passwordLabels = { current_password: 'Current password', new_password: 'New password' };

/**
 * A 401 from a call that takes the password means either that the password is wrong or that the session
 * itself ended; the problem does not say which, so the session is asked. A working session: the password.
 */
async function wrongPasswordOrEnded(api: Api): Promise<'wrong-password' | 'ended'> {
  try {
    return (await api.session()) ? 'wrong-password' : 'ended';
  } catch {
    return 'wrong-password';
  }
}

const endedMessage = 'Your session has ended, so nothing was changed. Sign in again, then try once more.';

function ChangePassword({ email, onChanged }: { email: string; onChanged: () => void }) {
  const api = useApi();
  const { expired } = useSession();
  const id = useId();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState('');

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setDone('');
    const found = problems({
      current_password: currentPasswordProblem(current, 'Enter your current password.'),
      new_password:
        newPasswordProblem(next, email, passwordLabels.new_password) ??
        (next !== '' && next === current ? 'New password must differ from the current one.' : undefined),
    });
    setFields(found);
    setError(fieldsAlert(found));
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await api.changePassword({ currentPassword: current, newPassword: next });
      setCurrent('');
      setNext('');
      setDone('Your password is changed. Every other session of your account was signed out.');
      onChanged();
    } catch (caught) {
      if (isSignedOutError(caught)) {
        if ((await wrongPasswordOrEnded(api)) === 'wrong-password') {
          const wrong = { current_password: 'Current password is not right.' };
          setFields(wrong);
          setError(fieldsAlert(wrong));
        } else {
          expired();
          setError(endedMessage);
        }
      } else {
        const byField = fieldErrors(caught, passwordLabels);
        setFields(byField);
        setError(fieldsAlert(byField) ?? errorMessage(caught));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Change your password</h2>
      <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
        {/* Password managers file the new password under this account's name. */}
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        <Field
          id={`${id}-current`}
          label={passwordLabels.current_password}
          error={fields.current_password}
          inputProps={{
            type: 'password',
            name: 'current_password',
            autoComplete: 'current-password',
            maxLength: limits.maxPasswordLength,
            value: current,
            onChange: (event) => setCurrent(event.target.value),
          }}
        />
        <Field
          id={`${id}-new`}
          label={passwordLabels.new_password}
          error={fields.new_password}
          hint={`At least ${limits.minPasswordLength} characters, not your email address, not a common password.`}
          describedBy={`${id}-strength`}
          inputProps={{
            type: 'password',
            name: 'new_password',
            autoComplete: 'new-password',
            maxLength: limits.maxPasswordLength,
            value: next,
            onChange: (event) => setNext(event.target.value),
          }}
        >
          <PasswordStrength id={`${id}-strength`} password={next} userInputs={[email]} />
        </Field>
        <div role="alert" className="form-alert">
          {error && <p className="problem">{error}</p>}
        </div>
        <p role="status" className={done ? 'success' : 'visually-hidden'}>
          {busy ? 'Changing your password…' : done}
        </p>
        <div>
          <BusyButton type="submit" busy={busy}>
            Change password
          </BusyButton>
        </div>
      </form>
    </section>
  );
}

/** "Chrome on Linux" from a User-Agent: enough to recognise one's own devices, not a full parser. */
function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'An unknown browser or program';
  const browser = (
    [
      [/Edg\//, 'Edge'],
      [/OPR\/|Opera/, 'Opera'],
      [/Firefox\//, 'Firefox'],
      [/Chrom(e|ium)\//, 'Chrome'],
      [/Safari\//, 'Safari'],
      [/curl\//, 'curl'],
      [/node|undici/i, 'Node.js'],
    ] as const
  ).find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = (
    [
      [/Android/, 'Android'],
      [/iPhone|iPad|iOS/, 'iOS'],
      [/Windows/, 'Windows'],
      [/Mac OS X|Macintosh/, 'macOS'],
      [/CrOS/, 'ChromeOS'],
      [/Linux/, 'Linux'],
    ] as const
  ).find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.slice(0, 60);
}

type SessionsState =
  { status: 'loading' } | { status: 'ready'; sessions: ActiveSession[] } | { status: 'error'; error: string };

function Sessions({ version }: { version: number }) {
  const api = useApi();
  const session = useSession();
  const { expired } = session;
  const id = useId();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<SessionsState>({ status: 'loading' });
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [announcement, setAnnouncement] = useState('');

  const failed = useCallback(
    (caught: unknown) => {
      if (isSignedOutError(caught)) {
        expired();
        return endedMessage;
      }
      return errorMessage(caught);
    },
    [expired],
  );

  useEffect(() => {
    let current = true;
    api.listSessions().then(
      (sessions) => current && setState({ status: 'ready', sessions }),
      (caught: unknown) => current && setState({ status: 'error', error: failed(caught) }),
    );
    return () => {
      current = false;
    };
  }, [api, attempt, version, failed]);

  const signOutOne = async (target: ActiveSession) => {
    if (busy) return;
    setBusy(target.id);
    setError(undefined);
    try {
      await api.revokeSession(target.id);
      if (target.current) {
        // This browser's own session: the server cleared the cookie; the app follows.
        session.signedOut();
        navigate(routes.signIn, { replace: true });
        return;
      }
      setState((s) =>
        s.status === 'ready' ? { ...s, sessions: s.sessions.filter((other) => other.id !== target.id) } : s,
      );
      setAnnouncement(`Signed out ${describeUserAgent(target.user_agent)}.`);
      requestAnimationFrame(() => document.getElementById(`${id}-title`)?.focus());
    } catch (caught) {
      setError(`Signing that session out failed: ${failed(caught)}`);
    } finally {
      setBusy(undefined);
    }
  };

  const signOutOthers = async () => {
    if (busy) return;
    setBusy('others');
    setError(undefined);
    try {
      await api.revokeOtherSessions();
      setState((s) => (s.status === 'ready' ? { ...s, sessions: s.sessions.filter((other) => other.current) } : s));
      setAnnouncement('Signed out everywhere else. Only this browser is still signed in.');
    } catch (caught) {
      setError(`Signing out the other sessions failed: ${failed(caught)}`);
    } finally {
      setBusy(undefined);
    }
  };

  const others = state.status === 'ready' ? state.sessions.filter((s) => !s.current).length : 0;
  return (
    <section className="panel" aria-labelledby={`${id}-title`} aria-busy={state.status === 'loading'}>
      <h2 id={`${id}-title`} tabIndex={-1}>
        Where you are signed in
      </h2>
      <p role="status" className={announcement ? 'success' : 'visually-hidden'}>
        {announcement}
      </p>
      <div role="alert" className="form-alert">
        {error && <p className="problem">{error}</p>}
      </div>
      {state.status === 'loading' && <p role="status">Loading your sessions…</p>}
      {state.status === 'error' && (
        <div className="problem" role="alert">
          <p>{state.error}</p>
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Retry
          </button>
        </div>
      )}
      {state.status === 'ready' && (
        <>
          <ul className="session-list">
            {state.sessions.map((item) => (
              <li key={item.id} className="session-item" data-current={item.current || undefined}>
                <h3 id={`${id}-${item.id}`} className="session-name">
                  {describeUserAgent(item.user_agent)}
                  {item.current && <span className="badge">This browser</span>}
                </h3>
                <dl className="key-facts">
                  <div>
                    <dt>Signed in</dt>
                    <dd>
                      <time dateTime={item.created_at}>{formatMoment(item.created_at)}</time>
                    </dd>
                  </div>
                  <div>
                    <dt>Last active</dt>
                    <dd>
                      <RelativeTime iso={item.last_used_at} />
                    </dd>
                  </div>
                  <div>
                    <dt>Ends unless used</dt>
                    <dd>
                      <time dateTime={item.expires_at}>{formatMoment(item.expires_at)}</time>
                    </dd>
                  </div>
                </dl>
                <BusyButton
                  className="secondary"
                  busy={busy === item.id}
                  aria-describedby={`${id}-${item.id}`}
                  onClick={() => void signOutOne(item)}
                >
                  Sign out
                </BusyButton>
              </li>
            ))}
          </ul>
          {others > 0 ? (
            <p>
              <BusyButton busy={busy === 'others'} onClick={() => void signOutOthers()}>
                Sign out everywhere else
              </BusyButton>
            </p>
          ) : (
            <p className="hint">This browser is the only place you are signed in.</p>
          )}
        </>
      )}
    </section>
  );
}

function DeleteAccount() {
  const api = useApi();
  const session = useSession();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const confirm = async () => {
    if (busy) return;
    const problem = currentPasswordProblem(password);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      await api.deleteAccount(password);
      setOpen(false);
      session.signedOut();
      navigate(`${routes.releases}`, { replace: true });
    } catch (caught) {
      if (isSignedOutError(caught)) {
        if ((await wrongPasswordOrEnded(api)) === 'wrong-password') setError('Password is not right.');
        else {
          setOpen(false);
          session.expired();
        }
      } else setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel danger-zone" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Delete your account</h2>
      <p>
        Your account, its sessions and all its API keys are deleted for good; programs using your keys stop working.
      </p>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        Delete account
      </button>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete account"
        busy={busy}
        error={undefined}
        onConfirm={() => void confirm()}
        onCancel={() => {
          if (busy) return;
          setOpen(false);
          setPassword('');
          setError(undefined);
        }}
      >
        <p>This cannot be undone. Enter your password to confirm.</p>
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void confirm();
          }}
        >
          <Field
            id={`${id}-password`}
            label="Password"
            error={error}
            inputProps={{
              type: 'password',
              name: 'password',
              autoComplete: 'current-password',
              value: password,
              onChange: (event) => setPassword(event.target.value),
            }}
          />
        </form>
      </ConfirmDialog>
    </section>
  );
}

/** `/settings/account`: the password, where one is signed in, and deleting the account. Signed-in users only. */
export function AccountPage() {
  usePageTitle('Your account');
  const gate = useSignedInOnly();
  const { state } = useSession();
  const [version, setVersion] = useState(0);
  const email = state.status === 'signed-in' ? state.user.email : state.status === 'ended' ? state.email : '';

  return (
    <div className="keys-page">
      <h1 tabIndex={-1}>Your account</h1>
      {gate ?? (
        <>
          <p className="lead">
            Signed in as <strong>{email}</strong>.
          </p>
          <ChangePassword email={email} onChanged={() => setVersion((n) => n + 1)} />
          <Sessions version={version} />
          <DeleteAccount />
        </>
      )}
    </div>
  );
}

import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../api.js';
import { currentPasswordProblem } from '../form-checks.js';
import { useSession, type SessionState } from '../session.js';
import { BusyButton } from './busy-button.js';
import { Field } from './field.js';

/**
 * The session stopped working in the middle of something (signed out elsewhere, expired). Rather than sending
 * the person to the sign-in page, which would lose what they typed, this says so in a modal dialog over the
 * page and signs in again right there; the page underneath keeps its forms as they were.
 */
export function SessionEndedDialog() {
  const session = useSession();
  const { state } = session;
  const ended = state.status === 'ended';
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  // "Not now" holds for the ending it answered; a later ending asks again.
  const [dismissedFor, setDismissedFor] = useState<SessionState | undefined>();
  const dismissed = dismissedFor === state;
  const setDismissed = (value: boolean) => setDismissedFor(value ? state : undefined);
  const open = ended && !dismissed;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy || state.status !== 'ended') return;
    const problem = currentPasswordProblem(password);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      await session.signIn({ email: state.email, password });
      setPassword('');
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      {ended && dismissed && (
        <div className="problem" role="alert">
          <p>Your session has ended: sign in again to save anything on this page. What you typed is kept.</p>
          <button type="button" onClick={() => setDismissed(false)}>
            Sign in again
          </button>
        </div>
      )}
      {/* Only there while the session has ended: its Password field must not be a second one on every page. */}
      {ended && (
        <dialog
          ref={ref}
          className="dialog"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-body`}
          onClose={() => setDismissed(true)}
        >
          <h2 id={`${id}-title`}>Your session has ended</h2>
          <p id={`${id}-body`}>
            You were signed out (from another device, or the session expired), so that last action was not done. Sign in
            again to carry on: the page keeps what you typed.
          </p>
          <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
            <p className="hint">
              Signing in as <strong>{state.status === 'ended' ? state.email : ''}</strong>
            </p>
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
            <div className="dialog-actions">
              <button type="button" className="secondary" onClick={() => setDismissed(true)}>
                Not now
              </button>
              <BusyButton type="submit" busy={busy}>
                Sign in
              </BusyButton>
            </div>
          </form>
        </dialog>
      )}
    </>
  );
}

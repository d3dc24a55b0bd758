import { limits } from '@releases/contract/wire';
import { useId, useState, type FormEvent } from 'react';
import { errorMessage, fieldProblems } from '../api.js';
import { useApi } from '../api-context.js';
import { BusyButton } from '../components/busy-button.js';
import { Field } from '../components/field.js';
import { PasswordStrength } from '../components/password-strength.js';
import { fieldsAlert, newPasswordProblem } from '../form-checks.js';
import { usePageTitle } from '../page-title.js';
import { Link } from '../router.js';
import { captureResetToken, forgetResetToken, resetToken } from '../reset-token.js';
import { routes } from '../routes.js';

type Outcome = 'form' | 'done' | 'bad-link';

/**
 * `/reset-password#token=...`: the page a reset mail links to. The token is read from the fragment and taken
 * out of the address bar before anything else (see `reset-token.ts`); then a new password is chosen.
 */
export function ResetPasswordPage() {
  usePageTitle('Choose a new password');
  const api = useApi();
  const id = useId();
  const [token] = useState(() => {
    captureResetToken();
    return resetToken();
  });
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome>(token ? 'form' : 'bad-link');

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy || !token) return;
    const problem = newPasswordProblem(password, '', 'New password');
    setFieldError(problem);
    setError(problem ? fieldsAlert({ new_password: problem }) : undefined);
    if (problem) return;
    setBusy(true);
    try {
      await api.confirmPasswordReset({ token, newPassword: password });
      forgetResetToken();
      setOutcome('done');
    } catch (caught) {
      const found = fieldProblems(caught);
      const badToken = found.some((p) => p.field === 'token');
      const badPassword = found.find((p) => p.field === 'new_password');
      if (badToken) {
        forgetResetToken();
        setOutcome('bad-link');
      } else if (badPassword) {
        const message = `New password ${badPassword.detail}.`;
        setFieldError(message);
        setError(fieldsAlert({ new_password: message }));
      } else setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="narrow-page">
      <h1 tabIndex={-1}>Choose a new password</h1>
      {outcome === 'done' && (
        <div role="status" className="success-panel">
          <p>Your new password is set, and every session of your account was signed out.</p>
          <p>
            <Link to={routes.signIn} className="button-link">
              Sign in with it
            </Link>
          </p>
        </div>
      )}
      {outcome === 'bad-link' && (
        <div role="alert" className="problem">
          <p>
            This link does not work: it is incomplete, was used already, was replaced by a newer one, or is older than{' '}
            {limits.passwordResetLifetimeMinutes} minutes.
          </p>
          <p>
            <Link to={routes.forgotPassword}>Ask for a new link</Link>
          </p>
        </div>
      )}
      {outcome === 'form' && (
        <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
          <Field
            id={`${id}-password`}
            label="New password"
            error={fieldError}
            hint={`At least ${limits.minPasswordLength} characters, not your email address, not a common password.`}
            describedBy={`${id}-strength`}
            inputProps={{
              type: 'password',
              name: 'new_password',
              autoComplete: 'new-password',
              maxLength: limits.maxPasswordLength,
              value: password,
              onChange: (event) => setPassword(event.target.value),
            }}
          >
            <PasswordStrength id={`${id}-strength`} password={password} userInputs={[]} />
          </Field>
          <div role="alert" className="form-alert">
            {error && <p className="problem">{error}</p>}
          </div>
          <div>
            <BusyButton type="submit" busy={busy}>
              Set the new password
            </BusyButton>
          </div>
        </form>
      )}
    </div>
  );
}

import { limits } from '@releases/contract/wire';
import { useId, useState, type FormEvent } from 'react';
import { errorMessage, fieldErrors } from '../api.js';
import { useApi } from '../api-context.js';
import { BusyButton } from '../components/busy-button.js';
import { Field } from '../components/field.js';
import { emailProblem, fieldsAlert } from '../form-checks.js';
import { usePageTitle } from '../page-title.js';
import { Link } from '../router.js';
import { routes } from '../routes.js';

/** `/forgot-password`: asks for a reset link by mail. The answer is the same whether or not the account exists. */
export function ForgotPasswordPage() {
  usePageTitle('Forgot your password');
  const api = useApi();
  const id = useId();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | undefined>();
  const [sentTo, setSentTo] = useState<string | undefined>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const problem = emailProblem(email);
    const found = problem ? { email: problem } : {};
    setFields(found);
    setError(fieldsAlert(found));
    if (problem) return;
    setBusy(true);
    try {
      await api.requestPasswordReset(email.trim());
      setSentTo(email.trim());
    } catch (caught) {
      const byField = fieldErrors(caught, { email: 'Email' });
      setFields(byField);
      setError(fieldsAlert(byField) ?? errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="narrow-page">
      <h1 tabIndex={-1}>Forgot your password?</h1>
      {sentTo ? (
        <div role="status" className="success-panel">
          <p>
            If an account uses <strong>{sentTo}</strong>, a mail with a link to choose a new password is on its way. The
            link works once, for {limits.passwordResetLifetimeMinutes} minutes.
          </p>
          <p>Nothing arrived? Check the spam folder, or ask again: a new link replaces the old one.</p>
          <p>
            <button type="button" className="secondary" onClick={() => setSentTo(undefined)}>
              Ask again
            </button>
          </p>
        </div>
      ) : (
        <>
          <p>Enter the email address of your account: we will mail you a link to choose a new password.</p>
          <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
            <Field
              id={`${id}-email`}
              label="Email"
              error={fields.email}
              inputProps={{
                type: 'email',
                name: 'email',
                autoComplete: 'email',
                maxLength: limits.maxEmailLength,
                value: email,
                onChange: (event) => setEmail(event.target.value),
              }}
            />
            <div role="alert" className="form-alert">
              {error && <p className="problem">{error}</p>}
            </div>
            <div>
              <BusyButton type="submit" busy={busy}>
                Send the link
              </BusyButton>
            </div>
          </form>
        </>
      )}
      <p className="switch">
        Remembered it? <Link to={routes.signIn}>Sign in</Link>
      </p>
    </div>
  );
}

import { limits } from '@releases/contract/wire';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage, fieldErrors } from '../api.js';
import { BusyButton } from '../components/busy-button.js';
import { Field } from '../components/field.js';
import { PasswordStrength } from '../components/password-strength.js';
import { currentPasswordProblem, emailProblem, fieldsAlert, newPasswordProblem, problems } from '../form-checks.js';
import { usePageTitle } from '../page-title.js';
import { Link, navigate, safeReturnPath, useLocation } from '../router.js';
import { routes } from '../routes.js';
import { useSession } from '../session.js';

export type AuthMode = 'signin' | 'signup';

const texts = {
  signin: { title: 'Sign in', button: 'Sign in', busy: 'Signing in…', other: 'signUp' },
  signup: { title: 'Create an account', button: 'Sign up', busy: 'Creating your account…', other: 'signIn' },
} as const;

const labels = { email: 'Email', password: 'Password' };

/** `/signin` and `/signup`: one form, two wordings. After success, back to where the user was going. */
export function AuthPage({ mode }: { mode: AuthMode }) {
  const text = texts[mode];
  usePageTitle(text.title);
  const session = useSession();
  const { search } = useLocation();
  const next = safeReturnPath(new URLSearchParams(search).get('next'));
  const id = useId();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [fields, setFields] = useState<Record<string, string>>({});

  // Once signed in (now, or already when the page opened), on to where the user was going: read at that
  // moment, once, so the navigation itself cannot retrigger it.
  const signedIn = session.state.status === 'signed-in';
  useEffect(() => {
    if (signedIn) navigate(safeReturnPath(new URLSearchParams(window.location.search).get('next')), { replace: true });
  }, [signedIn]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const found = problems({
      email: emailProblem(email),
      password: mode === 'signup' ? newPasswordProblem(password, email) : currentPasswordProblem(password),
    });
    setFields(found);
    setError(fieldsAlert(found));
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await (mode === 'signin' ? session.signIn : session.signUp)({ email, password });
    } catch (caught) {
      const byField = fieldErrors(caught, labels);
      setFields(byField);
      setError(fieldsAlert(byField) ?? errorMessage(caught));
      setBusy(false);
    }
  };

  const otherLink = `${routes[text.other]}${next === routes.releases ? '' : `?next=${encodeURIComponent(next)}`}`;
  return (
    <div className="narrow-page">
      <h1 tabIndex={-1}>{text.title}</h1>
      <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
        <Field
          id={`${id}-email`}
          label={labels.email}
          error={fields.email}
          inputProps={{
            type: 'email',
            name: 'email',
            autoComplete: 'email',
            required: true,
            maxLength: limits.maxEmailLength,
            value: email,
            onChange: (event) => setEmail(event.target.value),
          }}
        />
        <Field
          id={`${id}-password`}
          label={labels.password}
          error={fields.password}
          {...(mode === 'signup'
            ? {
                hint: `At least ${limits.minPasswordLength} characters, not your email address, not a common password.`,
                describedBy: `${id}-strength`,
              }
            : {})}
          inputProps={{
            type: 'password',
            name: 'password',
            autoComplete: mode === 'signup' ? 'new-password' : 'current-password',
            required: true,
            maxLength: limits.maxPasswordLength,
            value: password,
            onChange: (event) => setPassword(event.target.value),
          }}
        >
          {mode === 'signup' && <PasswordStrength id={`${id}-strength`} password={password} userInputs={[email]} />}
        </Field>
        <div role="alert" className="form-alert">
          {error && <p className="problem">{error}</p>}
        </div>
        <p role="status" className="visually-hidden">
          {busy ? text.busy : ''}
        </p>
        <div>
          <BusyButton type="submit" busy={busy}>
            {text.button}
          </BusyButton>
        </div>
      </form>
      {mode === 'signin' && (
        <p className="switch">
          <Link to={routes.forgotPassword}>Forgot your password?</Link>
        </p>
      )}
      <p className="switch">
        {mode === 'signin' ? 'No account yet? ' : 'Already have an account? '}
        <Link to={otherLink}>{mode === 'signin' ? 'Create one' : 'Sign in instead'}</Link>
      </p>
    </div>
  );
}

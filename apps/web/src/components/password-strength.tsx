import { useEffect, useState } from 'react';
import type { Strength } from '../password-strength-estimator.js';

type Estimate = (password: string, userInputs: string[]) => Strength;

let loading: Promise<Estimate> | undefined;
/** The estimator and its dictionary, fetched once, the first time a form that chooses a password shows. */
function loadEstimator(): Promise<Estimate> {
  loading ??= import('../password-strength-estimator.js').then((module) => module.estimateStrength);
  // A failed fetch (offline) may be tried again by the next form.
  loading.catch(() => (loading = undefined));
  return loading;
}

const words = ['Very weak', 'Weak', 'Fair', 'Strong', 'Very strong'] as const;

export interface PasswordStrengthProps {
  /** The element id the password field names in `aria-describedby`. */
  id: string;
  password: string;
  /** What the password should not resemble (the email address). */
  userInputs: string[];
}

/**
 * How hard the password being typed is to guess, as one types: a bar and a word, and zxcvbn's reason when it
 * is weak. Advice only: the server's rules (length, not the email, not a common password) decide. It is the
 * field's description, read when the field is focused, rather than a live region that would talk over typing.
 */
export function PasswordStrength({ id, password, userInputs }: PasswordStrengthProps) {
  const [estimate, setEstimate] = useState<Estimate | undefined>();
  const [failed, setFailed] = useState(false);
  const inputs = userInputs.join('\n');

  useEffect(() => {
    let current = true;
    loadEstimator().then(
      (found) => current && setEstimate(() => found),
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, []);

  // The estimate remembers which password it is for: a stale one (typing went on) is not shown.
  const [estimated, setEstimated] = useState<{ password: string; strength: Strength } | undefined>();
  useEffect(() => {
    if (!estimate || password === '') return;
    // A short pause after the last key: zxcvbn on a long password takes a few milliseconds per run.
    const timer = setTimeout(
      () => setEstimated({ password, strength: estimate(password, inputs.split('\n').filter(Boolean)) }),
      120,
    );
    return () => clearTimeout(timer);
  }, [estimate, password, inputs]);
  const strength = estimated?.password === password ? estimated.strength : undefined;

  let text: string;
  if (password === '') text = 'Strength: type a password to see how hard it is to guess.';
  else if (failed) text = 'Strength could not be checked.';
  else if (!strength) text = 'Strength: checking…';
  else text = `Strength: ${words[strength.score]}.${strength.warning ? ` ${strength.warning}` : ''}`;

  return (
    <div className="strength" data-score={strength && password !== '' ? strength.score : undefined}>
      <div className="strength-bar" aria-hidden="true">
        <span />
      </div>
      <p id={id} className="hint strength-text">
        {text}
      </p>
    </div>
  );
}

import { limits } from '@releases/contract/wire';

/**
 * What a form can tell before sending anything, in words, one message per field. The server checks again
 * (and more: common passwords); these only spare a round trip and say it plainly. A rule that compares two
 * fields speaks only when both are filled in: an empty form is "enter your email", never "must not be the
 * email address".
 */

export function emailProblem(email: string): string | undefined {
  const trimmed = email.trim();
  if (trimmed === '') return 'Enter your email address.';
  if (trimmed.length > limits.maxEmailLength) return `Email must be at most ${limits.maxEmailLength} characters.`;
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) return 'Enter an email address like name@example.com.';
  return undefined;
}

/** A password being chosen (sign up, change, reset). `label` names it in the message ("New password"). */
export function newPasswordProblem(password: string, email: string, label = 'Password'): string | undefined {
  if (password === '') return `Enter a ${label.toLowerCase()}.`;
  if (password.length < limits.minPasswordLength) {
    return `${label} must be at least ${limits.minPasswordLength} characters.`;
  }
  if (password.length > limits.maxPasswordLength) {
    return `${label} must be at most ${limits.maxPasswordLength} characters.`;
  }
  const address = email.trim().toLowerCase();
  if (address !== '' && password.trim().toLowerCase() === address) {
    return `${label} must not be your email address.`;
  }
  return undefined;
}

/** A password the account already has (sign in, confirm a change or a deletion): only "is it there". */
export function currentPasswordProblem(password: string, message = 'Enter your password.'): string | undefined {
  return password === '' ? message : undefined;
}

/** The fields that have a problem, without the ones that have none. */
export function problems(entries: Record<string, string | undefined>): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [field, problem] of Object.entries(entries)) if (problem !== undefined) found[field] = problem;
  return found;
}

/** The form's alert when fields have problems: it points at them rather than repeating them. */
export function fieldsAlert(fields: Record<string, string>): string | undefined {
  const count = Object.keys(fields).length;
  if (count === 0) return undefined;
  return count === 1 ? 'Check the field marked below.' : `Check the ${count} fields marked below.`;
}

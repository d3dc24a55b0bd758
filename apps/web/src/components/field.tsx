import type { InputHTMLAttributes, ReactNode } from 'react';

export interface FieldProps {
  id: string;
  label: string;
  error: string | undefined;
  hint?: string;
  /** More descriptions of the input, by element id (a strength meter). */
  describedBy?: string;
  /** Shown under the input (a strength meter). */
  children?: ReactNode;
  inputProps: InputHTMLAttributes<HTMLInputElement>;
}

/** A labelled input with its hint and its error, both tied to it for screen readers. */
export function Field({ id, label, error, hint, describedBy, children, inputProps }: FieldProps) {
  const described = [hint ? `${id}-hint` : '', describedBy ?? '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        {...inputProps}
      />
      {children}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

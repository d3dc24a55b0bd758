import type { InputHTMLAttributes } from 'react';

export interface FieldProps {
  id: string;
  label: string;
  error: string | undefined;
  hint?: string;
  inputProps: InputHTMLAttributes<HTMLInputElement>;
}

/** A labelled input with its hint and its error, both tied to it for screen readers. */
export function Field({ id, label, error, hint, inputProps }: FieldProps) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
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
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

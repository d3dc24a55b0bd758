import type { ButtonHTMLAttributes, MouseEvent } from 'react';

export interface BusyButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Waiting for the server: the button says so and ignores presses until it is done. */
  busy: boolean;
}

/**
 * A button whose action waits on the server. While busy it keeps its name (so people and tests find the
 * same button), shows a spinner, is `aria-disabled` and ignores presses, so nothing is sent twice. It stays
 * focusable (unlike `disabled`), so the keyboard focus is not thrown to the top of the page meanwhile.
 */
export function BusyButton({ busy, onClick, children, className, ...rest }: BusyButtonProps) {
  const handleClick = (event: MouseEvent<HTMLButtonElement>) => {
    if (busy) {
      event.preventDefault();
      return;
    }
    onClick?.(event);
  };
  return (
    <button
      type="button"
      {...rest}
      className={className}
      aria-disabled={busy || undefined}
      data-busy={busy || undefined}
      onClick={handleClick}
    >
      {children}
      {busy && <span className="spinner" aria-hidden="true" />}
    </button>
  );
}

import { useEffect, useId, useRef, type ReactNode } from 'react';
import { BusyButton } from './busy-button.js';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  /** The confirming button's name (`Revoke`). */
  confirmLabel: string;
  busy?: boolean;
  error?: string | undefined;
  onConfirm: () => void;
  /** Cancel, Escape, or the dialog closed any other way. */
  onCancel: () => void;
}

/**
 * A modal confirmation on the native `<dialog>`: `showModal()` makes the rest of the page inert, traps the
 * focus, closes on Escape and, when it closes, gives the focus back to what had it. The safe choice (Cancel)
 * takes the focus first, so Enter never destroys anything by accident.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      cancelRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onClose={() => {
        if (open) onCancel();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-body`}>{children}</div>
      <div role="alert">{error && <p className="problem">{error}</p>}</div>
      <div className="dialog-actions">
        <button type="button" className="secondary" ref={cancelRef} onClick={onCancel}>
          Cancel
        </button>
        <BusyButton className="danger" busy={busy ?? false} onClick={onConfirm}>
          {confirmLabel}
        </BusyButton>
      </div>
    </dialog>
  );
}

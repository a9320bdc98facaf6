import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal on the native `<dialog>` element: the browser keeps focus inside it, Escape
 * closes it, and the page behind is inert. Shown while `open`; `onClose` is called however it
 * closes (Escape, the Close button), so the caller's state follows. Focus goes to the first
 * element marked `autofocus` inside, else to the dialog's first control.
 */
export function Dialog(props: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  /** Words of the closing button (default "Close"). */
  closeLabel?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[autofocus], [data-autofocus]')?.focus();
    }
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={props.onClose} class="modal">
      {props.open && (
        <>
          <h2 id={titleId}>{props.title}</h2>
          {props.children}
          <div class="actions">
            <button type="button" class="secondary" onClick={() => ref.current?.close()}>
              {props.closeLabel ?? 'Close'}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

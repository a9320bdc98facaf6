import type { ComponentChildren } from 'preact';
import { CopyField } from './copy-field.tsx';
import { Dialog } from './dialog.tsx';

/**
 * A secret shown once (a token, a one-time link, a signing secret): a dialog open while
 * `value` is not null, the words the caller gives (what it is for, that it is not shown
 * again), and the value in a field with Copy that has the keyboard at once.
 */
export function SecretDialog(props: {
  title: string;
  label: string;
  value: string | null;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return (
    <Dialog open={props.value !== null} title={props.title} onClose={props.onClose}>
      {props.value !== null && (
        <>
          {props.children}
          <CopyField label={props.label} value={props.value} focus />
        </>
      )}
    </Dialog>
  );
}

import { useEffect, useId, useRef, useState } from 'preact/hooks';

/**
 * A value to copy (a secret shown once, a link, a code): read-only, selected when focused,
 * with a Copy button that says when it worked. `focus` puts the keyboard on it at once.
 */
export function CopyField(props: {
  label: string;
  value: string;
  focus?: boolean;
  /** A larger type for a code read off the screen (an enrolment code). */
  large?: boolean;
}) {
  const id = useId();
  const [copied, setCopied] = useState('');
  const input = useRef<HTMLInputElement>(null);
  // Also when it replaces a form in a dialog already open (the dialog focuses only on opening).
  useEffect(() => {
    if (props.focus) input.current?.focus();
  }, [props.value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused by the browser: select the text and copy it.');
    }
  };
  return (
    <div class={props.large ? 'copy-field large' : 'copy-field'}>
      <label for={id}>{props.label}</label>
      <div class="copy-row">
        <input
          ref={input}
          id={id}
          readOnly
          value={props.value}
          data-autofocus={props.focus ? '' : undefined}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" class="secondary" onClick={copy} aria-label={`Copy ${props.label}`}>
          Copy
        </button>
      </div>
      <span role="status" class="copied">
        {copied}
      </span>
    </div>
  );
}

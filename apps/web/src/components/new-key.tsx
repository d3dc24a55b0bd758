import { headerNames } from '@releases/contract/wire';
import { useEffect, useId, useRef, useState } from 'react';
import type { CreatedApiKey } from '../api.js';

export interface NewKeyProps {
  created: CreatedApiKey;
  /** The health endpoint's absolute URL, for the example. */
  healthUrl: string;
  onDone: () => void;
}

/** `'` cannot appear in a key, but the example is a shell line: quote it as one all the same. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The one time a key is shown. It lives only in this component's props (memory): not in the URL, not in
 * storage, not in the list, so a reload or leaving the page forgets it, as the server already has.
 */
export function NewKey({ created, healthUrl, onDone }: NewKeyProps) {
  const id = useId();
  const ref = useRef<HTMLElement>(null);
  const keyRef = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'select'>('idle');

  // The panel takes the focus when it appears, so a screen reader reads the warning and the key at once.
  useEffect(() => ref.current?.focus(), [created.id]);

  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy('copied');
    } catch {
      // No clipboard (an insecure origin, or permission refused): select the key for Ctrl+C instead.
      const selection = window.getSelection();
      if (keyRef.current && selection) {
        selection.selectAllChildren(keyRef.current);
      }
      setCopy('select');
    }
  };

  const curl = `curl -H ${shellQuote(`${headerNames.apiKey}: ${created.key}`)} ${healthUrl}`;
  return (
    <section ref={ref} tabIndex={-1} className="new-key" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Your new key “{created.name}”</h2>
      <p className="warning">
        <strong>Copy this key now: you will not see it again.</strong> Only a hash of it is kept. If you lose it, revoke
        it and create another.
      </p>
      <div className="key-value">
        <code ref={keyRef} className="secret">
          {created.key}
        </code>
        <button type="button" onClick={() => void copyKey()}>
          Copy
        </button>
      </div>
      <p role="status" className="copy-status">
        {copy === 'copied' && 'Copied to the clipboard.'}
        {copy === 'select' && 'The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.'}
      </p>
      <p>Try it: this checks the key and answers &quot;OK&quot;.</p>
      <pre className="example">
        <code>{curl}</code>
      </pre>
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

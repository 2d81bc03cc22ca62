import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type FieldErrors } from './api';

/** A page-level message: errors are announced (role=alert), notices politely (role=status). */
export function Message({ error, notice }: { error?: unknown; notice?: string }) {
  if (error) {
    const text = error instanceof ApiError || error instanceof Error ? error.message : String(error);
    return (
      <p class="message error" role="alert">
        {text}
      </p>
    );
  }
  if (notice)
    return (
      <p class="message notice" role="status">
        {notice}
      </p>
    );
  return null;
}

export const fieldErrorsOf = (error: unknown): FieldErrors => (error instanceof ApiError ? error.errors : {});

/** A labelled control with its field errors under it, tied with aria-describedby. */
export function Field({ id, label, errors, hint, children }: { id: string; label: string; errors?: string[]; hint?: string; children: ComponentChildren }) {
  return (
    <div class={`field${errors?.length ? ' invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {errors?.length ? (
        <small id={`${id}-error`} class="field-error">
          {errors.join('; ')}
        </small>
      ) : null}
    </div>
  );
}

/** aria attributes for a control inside Field. */
export const described = (id: string, errors?: string[], hint?: string) => ({
  id,
  'aria-invalid': errors?.length ? true : undefined,
  'aria-describedby': [hint ? `${id}-hint` : '', errors?.length ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined,
});

/** A modal confirmation (native <dialog>: focus is trapped, Escape cancels). */
export function Confirm({
  title,
  body,
  confirmLabel,
  danger,
  onConfirm,
  onCancel,
}: {
  title: string;
  body: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Opened as soon as it is in the document, so a key pressed right after the click reaches it.
  useLayoutEffect(() => {
    const d = ref.current!;
    d.returnValue = '';
    if (!d.open) d.showModal();
    // Escape, Cancel and Confirm all close the dialog natively; its return value tells which.
    const closed = () => (d.returnValue === 'confirm' ? onConfirm() : onCancel());
    d.addEventListener('close', closed);
    return () => {
      d.removeEventListener('close', closed);
      if (d.open) d.close();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" class="confirm">
      <h2 id="confirm-title">{title}</h2>
      <div>{body}</div>
      <div class="actions">
        <button type="button" onClick={() => ref.current!.close('cancel')}>
          Cancel
        </button>
        <button type="button" class={danger ? 'danger' : 'primary'} onClick={() => ref.current!.close('confirm')}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A table's header row; the `numeric` columns are right-aligned like their cells. */
export function TableHead({ columns, numeric = [] }: { columns: readonly string[]; numeric?: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col" class={numeric.includes(c) ? 'num' : undefined}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Sets the document title and moves focus to the page heading on navigation (for screen readers). */
let firstPage = true;
export function PageHeading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Waymark dashboard`;
    // Not on the first page of a load: there the browser's own start (skip link first) is better.
    if (!firstPage) ref.current?.focus();
    firstPage = false;
  }, [children]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A form's request: its result, its error (for Message and the field errors) and whether it runs. */
export function useRequest<T>() {
  const [result, setResult] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = async (request: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    try {
      const r = await request();
      setResult(r);
      setError(undefined);
      return r;
    } catch (err) {
      setResult(undefined);
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { result, setResult, error, setError, busy, run };
}

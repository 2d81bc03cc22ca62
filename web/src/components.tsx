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

/** The 1-based numbers of the lines of a pasted list that are items (`latitude,longitude…`): blank
 *  lines and a header line are skipped, as the pages' parsers skip them. */
export function itemLines(text: string): number[] {
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length >= 2 && cells[0] !== '' && !/^lat/i.test(cells[0])) lines.push(i + 1);
  });
  return lines;
}

/** The API's message names the first bad item as `stops.4.latitude`; with the lines listed under the
 *  text box (ListErrors), the page's message points there instead. */
export function listMessage(error: unknown, field: string): unknown {
  if (!(error instanceof ApiError) || !Object.keys(error.errors).some((k) => k.startsWith(`${field}.`))) return error;
  return new ApiError(error.status, 'Some lines of the list are not valid: see under the list.', error.errors);
}

/**
 * The API's errors for the items of a pasted list (`stops.6.latitude`: 0-based, and the 7th item is not
 * the 7th line when the text has a header or blank lines) as a person reads them: "line 9: latitude
 * must be …", numbered as the text box's lines.
 */
export function ListErrors({ errors, field, text, max = 5 }: { errors: FieldErrors; field: string; text: string; max?: number }) {
  const lines = itemLines(text);
  const entries = Object.entries(errors).filter(([k]) => k.startsWith(`${field}.`));
  if (!entries.length) return null;
  const described = entries.map(([k, messages]) => {
    const [index, ...rest] = k.slice(field.length + 1).split('.');
    const line = lines[Number(index)] ?? Number(index) + 1;
    const what = rest.join(' ').replaceAll('_', ' ');
    return { line, text: `line ${line}: ${what ? `${what} ` : ''}${messages.join('; ')}` };
  });
  described.sort((a, b) => a.line - b.line);
  return (
    <ul class="field-error list-errors">
      {described.slice(0, max).map((d) => (
        <li key={d.text}>{d.text}</li>
      ))}
      {described.length > max && <li>and {described.length - max} more</li>}
    </ul>
  );
}

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

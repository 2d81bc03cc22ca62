import { useEffect, useRef, useState } from 'preact/hooks';
import { call, qs } from './api';
import type { GeoResult } from './api-types';

const KIND_LABEL: Record<GeoResult['kind'], string> = { address: 'Address', street: 'Street', place: 'Place', postcode: 'Postcode', poi: 'POI' };
/** Keystrokes closer together than this are one request: the last text is what is asked. */
const DEBOUNCE_MS = 120;

/**
 * An address search as an ARIA combobox: suggestions from the map's autocomplete while typing (arrow
 * keys, Enter, Escape, or a click), and the chosen one handed to `onPick`, which places the POI there.
 */
export function AddressField({ near, onPick }: { near?: { latitude: number; longitude: number }; onPick: (r: GeoResult) => void }) {
  const [text, setText] = useState('');
  const [results, setResults] = useState<GeoResult[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [status, setStatus] = useState('');
  const asked = useRef(0);

  useEffect(() => {
    if (text.trim().length < 2) {
      setResults([]);
      setOpen(false);
      return;
    }
    const n = ++asked.current;
    const timer = setTimeout(async () => {
      try {
        const r = await call<{ data: GeoResult[] }>(
          'GET',
          `/v1/geo/autocomplete${qs({ q: text, limit: '6', near: near ? `${near.latitude},${near.longitude}` : undefined })}`,
        );
        // An answer to an older text is dropped: the list always matches what is in the box.
        if (n !== asked.current) return;
        setResults(r.data);
        setActive(-1);
        setOpen(true);
        setStatus(r.data.length ? `${r.data.length} suggestions` : 'No address found');
      } catch {
        if (n === asked.current) setStatus('Address search is not available.');
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const pick = (r: GeoResult) => {
    onPick(r);
    setText(r.address.display_name ?? r.name);
    asked.current++;
    setOpen(false);
    setStatus(`Placed at ${r.address.display_name ?? r.name}`);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' && results.length) {
      e.preventDefault();
      setOpen(true);
      setActive((active + 1) % results.length);
    } else if (e.key === 'ArrowUp' && results.length) {
      e.preventDefault();
      setActive(active <= 0 ? results.length - 1 : active - 1);
    } else if (e.key === 'Enter' && open && active >= 0) {
      // Enter picks the suggestion instead of submitting the form.
      e.preventDefault();
      pick(results[active]);
    } else if (e.key === 'Escape') setOpen(false);
  };

  return (
    <div class="field address-field">
      <label for="poi-address">Address</label>
      <input
        id="poi-address"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={open && results.length > 0}
        aria-controls="poi-address-list"
        aria-activedescendant={open && active >= 0 ? `poi-address-${active}` : undefined}
        aria-describedby="poi-address-hint"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKey}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
      />
      <small id="poi-address-hint" class="hint">
        Type a street and number, a postcode or a place; picking a suggestion sets the latitude and longitude.
      </small>
      <div id="poi-address-list" role="listbox" aria-label="Address suggestions" class="suggestions" hidden={!open || results.length === 0}>
        {results.map((r, i) => (
          <div
            key={`${r.kind}-${r.latitude}-${r.longitude}-${i}`}
            id={`poi-address-${i}`}
            role="option"
            tabIndex={-1}
            aria-selected={i === active}
            class={i === active ? 'active' : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              pick(r);
            }}
          >
            <span class="suggestion-name">{r.address.display_name ?? r.name}</span>
            <span class="suggestion-kind">{KIND_LABEL[r.kind]}</span>
          </div>
        ))}
      </div>
      <p class="hint" role="status" aria-live="polite">
        {status}
      </p>
    </div>
  );
}

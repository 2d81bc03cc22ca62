import { useEffect, useState } from 'preact/hooks';
import { AddressField } from '../address-field';
import { call, formatDate, qs } from '../api';
import { Confirm, described, Field, fieldErrorsOf, Message, PageHeading, TableHead } from '../components';

import type { Attribute, Category, Poi } from '../api-types';

/** Every page of a list endpoint (attributes and categories are few per team). */
export async function listAll<T>(path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const r: { data: T[]; next: string | null } = await call('GET', `${path}${qs({ limit: '100', cursor: cursor ?? undefined })}`);
    out.push(...r.data);
    cursor = r.next;
  } while (cursor);
  return out;
}

const PAGE_SIZE = '25';

export interface PoiFilterState {
  name: string;
  category_id: string;
  attribute: string;
  value: string;
}

/** The list's query: the API's filters and the dashboard's `name` search. */
export function poiQuery(f: PoiFilterState): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = { name: f.name.trim(), category_id: f.category_id };
  if (f.attribute) params[`attributes[${f.attribute}]`] = f.value;
  return params;
}

/** Every POI matching a filter, up to `max` (the map pages draw them all). */
export async function loadPois(f: PoiFilterState, max = 2000): Promise<{ pois: Poi[]; more: boolean }> {
  const pois: Poi[] = [];
  let cursor: string | null = null;
  do {
    const r: { data: Poi[]; next: string | null } = await call('GET', `/pois${qs({ ...poiQuery(f), limit: '100', cursor: cursor ?? undefined })}`);
    pois.push(...r.data);
    cursor = r.next;
  } while (cursor && pois.length < max);
  return { pois, more: cursor !== null };
}

/** The filter controls shared by the POI table and the map. */
export function PoiFilterFields({
  filter,
  setFilter,
  attrs,
  cats,
}: {
  filter: PoiFilterState;
  setFilter: (f: PoiFilterState) => void;
  attrs: Attribute[];
  cats: Category[];
}) {
  return (
    <>
      <div class="field">
        <label for="filter-name">Name contains</label>
        <input id="filter-name" type="search" value={filter.name} maxLength={255} onInput={(e) => setFilter({ ...filter, name: e.currentTarget.value })} />
      </div>
      <div class="field">
        <label for="filter-category">Category</label>
        <select id="filter-category" value={filter.category_id} onChange={(e) => setFilter({ ...filter, category_id: e.currentTarget.value })}>
          <option value="">Any category</option>
          {cats.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-attribute">Attribute</label>
        <select id="filter-attribute" value={filter.attribute} onChange={(e) => setFilter({ ...filter, attribute: e.currentTarget.value })}>
          <option value="">No attribute filter</option>
          {attrs.map((a) => (
            <option key={a.id} value={a.name}>
              {a.name} ({a.type})
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-value">Attribute value</label>
        <input id="filter-value" value={filter.value} disabled={!filter.attribute} onInput={(e) => setFilter({ ...filter, value: e.currentTarget.value })} />
      </div>
    </>
  );
}

export function PoisPage() {
  const [attrs, setAttrs] = useState<Attribute[]>([]);
  const [cats, setCats] = useState<Category[]>([]);
  const [filter, setFilter] = useState({ name: '', category_id: '', attribute: '', value: '' });
  const [applied, setApplied] = useState(filter);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<{ data: Poi[]; next: string | null }>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [editing, setEditing] = useState<Poi | 'new' | undefined>();
  const [deleting, setDeleting] = useState<Poi>();

  useEffect(() => {
    listAll<Attribute>('/v1/attributes').then(setAttrs, setError);
    listAll<Category>('/v1/categories').then(setCats, setError);
  }, []);

  const cursor = cursors[cursors.length - 1];
  const load = () => {
    // The dashboard's list: the API's filters plus the text search on name.
    return call<{ data: Poi[]; next: string | null }>('GET', `/pois${qs({ ...poiQuery(applied), limit: PAGE_SIZE, cursor })}`).then(
      (r) => {
        setPage(r);
        setError(undefined);
      },
      (err) => {
        setPage({ data: [], next: null });
        setError(err);
      },
    );
  };
  useEffect(() => {
    void load();
  }, [applied, cursor]);

  const applyFilter = (e: Event) => {
    e.preventDefault();
    setNotice(undefined);
    setCursors([undefined]);
    setApplied({ ...filter });
  };
  const remove = async (p: Poi) => {
    try {
      await call('DELETE', `/v1/pois/${p.id}`);
      setNotice(`POI “${p.name}” deleted.`);
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageHeading>POIs</PageHeading>
      <Message error={error} notice={notice} />
      <form class="filters card" onSubmit={applyFilter} aria-label="Filter POIs">
        <PoiFilterFields filter={filter} setFilter={setFilter} attrs={attrs} cats={cats} />
        <button type="submit">Apply filters</button>
        <button type="button" class="primary push" onClick={() => setEditing('new')}>
          New POI
        </button>
      </form>
      {editing && (
        <PoiForm
          poi={editing === 'new' ? undefined : editing}
          attrs={attrs}
          cats={cats}
          onCancel={() => setEditing(undefined)}
          onSaved={(p, created) => {
            setEditing(undefined);
            setNotice(`POI “${p.name}” ${created ? 'created' : 'saved'}.`);
            void load();
          }}
        />
      )}
      <section aria-labelledby="poi-list-title">
        <h2 id="poi-list-title" class="visually-hidden">
          POI list
        </h2>
        {!page ? (
          <p role="status">Loading…</p>
        ) : page.data.length === 0 ? (
          <p>No POIs match.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <TableHead columns={['Name', 'Latitude', 'Longitude', 'Category', 'Attributes', 'Address', 'Updated', 'Actions']} />
              <tbody>
                {page.data.map((p) => (
                  <tr key={p.id}>
                    <td>{p.name}</td>
                    <td class="num">{p.latitude.toFixed(5)}</td>
                    <td class="num">{p.longitude.toFixed(5)}</td>
                    <td>{p.category?.name ?? '—'}</td>
                    <td class="attrs">
                      {Object.entries(p.attributes).map(([k, v]) => (
                        <span key={k} class="chip">
                          {k}: {String(v)}
                        </span>
                      ))}
                    </td>
                    <td>{p.address?.display_name ?? '—'}</td>
                    <td>{formatDate(p.updated_at)}</td>
                    <td class="row-actions">
                      <button type="button" onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>
                        Edit
                      </button>
                      <button type="button" class="danger" onClick={() => setDeleting(p)} aria-label={`Delete ${p.name}`}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <nav class="pager" aria-label="POI pages">
          <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </button>
          <span>Page {cursors.length}</span>
          <button type="button" disabled={!page?.next} onClick={() => page?.next && setCursors([...cursors, page.next])}>
            Next page
          </button>
        </nav>
      </section>
      {deleting && (
        <Confirm
          title={`Delete POI “${deleting.name}”?`}
          body={<p>This cannot be undone.</p>}
          confirmLabel="Delete POI"
          danger
          onCancel={() => setDeleting(undefined)}
          onConfirm={() => {
            const p = deleting;
            setDeleting(undefined);
            void remove(p);
          }}
        />
      )}
    </>
  );
}

function PoiForm({
  poi,
  attrs,
  cats,
  onCancel,
  onSaved,
}: {
  poi?: Poi;
  attrs: Attribute[];
  cats: Category[];
  onCancel: () => void;
  onSaved: (p: Poi, created: boolean) => void;
}) {
  const [name, setName] = useState(poi?.name ?? '');
  const [lat, setLat] = useState(poi ? String(poi.latitude) : '');
  const [lon, setLon] = useState(poi ? String(poi.longitude) : '');
  const [category, setCategory] = useState(poi?.category?.id ?? '');
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(attrs.map((a) => [a.name, poi && poi.attributes[a.name] !== undefined ? String(poi.attributes[a.name]) : ''])),
  );
  const [error, setError] = useState<unknown>();
  const errors = fieldErrorsOf(error);

  /** Typed like the API wants them; a text the type cannot take is sent as it is, so the API's message
   *  ("must be a number") is what the user reads. */
  const typed = (a: Attribute, raw: string): unknown => {
    if (a.type === 'number') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    if (a.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
    return raw;
  };
  const num = (s: string): unknown => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s.trim() === '' ? undefined : s);

  const submit = async (e: Event) => {
    e.preventDefault();
    const attributes: Record<string, unknown> = {};
    for (const a of attrs) {
      const raw = values[a.name] ?? '';
      if (raw !== '') attributes[a.name] = typed(a, raw);
      else if (poi && poi.attributes[a.name] !== undefined) attributes[a.name] = null;
    }
    const body = { name, latitude: num(lat), longitude: num(lon), category_id: category || null, attributes };
    try {
      const r = await call<{ data: Poi }>(poi ? 'PUT' : 'POST', poi ? `/v1/pois/${poi.id}` : '/v1/pois', body);
      onSaved(r.data, !poi);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="card" aria-labelledby="poi-form-title">
      <h2 id="poi-form-title">{poi ? `Edit “${poi.name}”` : 'New POI'}</h2>
      <form onSubmit={submit} noValidate>
        <Message error={error} />
        <div class="grid">
          <Field id="poi-name" label="Name" errors={errors.name}>
            <input {...described('poi-name', errors.name)} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <AddressField
            near={
              Number.isFinite(Number(lat)) && Number.isFinite(Number(lon)) && lat.trim() && lon.trim()
                ? { latitude: Number(lat), longitude: Number(lon) }
                : undefined
            }
            onPick={(r) => {
              setLat(String(r.latitude));
              setLon(String(r.longitude));
            }}
          />
          <Field id="poi-latitude" label="Latitude" errors={errors.latitude}>
            <input {...described('poi-latitude', errors.latitude)} inputMode="decimal" value={lat} onInput={(e) => setLat(e.currentTarget.value)} />
          </Field>
          <Field id="poi-longitude" label="Longitude" errors={errors.longitude}>
            <input {...described('poi-longitude', errors.longitude)} inputMode="decimal" value={lon} onInput={(e) => setLon(e.currentTarget.value)} />
          </Field>
          <Field id="poi-category" label="Category" errors={errors.category_id}>
            <select {...described('poi-category', errors.category_id)} value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
              <option value="">No category</option>
              {cats.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </Field>
          {attrs.map((a) => {
            const id = `poi-attr-${a.id}`;
            const errs = errors[`attributes.${a.name}`] ?? errors[`attributes.${a.id}`];
            return (
              <Field key={a.id} id={id} label={`${a.name} (${a.type})`} errors={errs}>
                {a.type === 'boolean' ? (
                  <select {...described(id, errs)} value={values[a.name]} onChange={(e) => setValues({ ...values, [a.name]: e.currentTarget.value })}>
                    <option value="">not set</option>
                    <option value="true">true</option>
                    <option value="false">false</option>
                  </select>
                ) : (
                  <input
                    {...described(id, errs)}
                    inputMode={a.type === 'number' ? 'decimal' : undefined}
                    value={values[a.name]}
                    onInput={(e) => setValues({ ...values, [a.name]: e.currentTarget.value })}
                  />
                )}
              </Field>
            );
          })}
        </div>
        <div class="actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" class="primary">
            {poi ? 'Save POI' : 'Create POI'}
          </button>
        </div>
      </form>
    </section>
  );
}

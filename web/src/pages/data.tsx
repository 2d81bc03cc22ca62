import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { Confirm, described, Field, fieldErrorsOf, Message, PageHeading, TableHead } from '../components';
import type { Attribute, Category } from '../api-types';
import { listAll } from './pois';

type Kind = 'attributes' | 'categories';
type Item = Attribute | Category;

function Manager({ kind }: { kind: Kind }) {
  const label = kind === 'attributes' ? 'Attribute' : 'Category';
  const [items, setItems] = useState<Item[]>();
  const [name, setName] = useState('');
  const [type, setType] = useState('string');
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [renaming, setRenaming] = useState<{ item: Item; name: string; error?: unknown }>();
  const [deleting, setDeleting] = useState<Item>();
  const errors = fieldErrorsOf(error);

  const load = () => listAll<Item>(`/v1/${kind}`).then(setItems, setError);
  useEffect(() => {
    void load();
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await call('POST', `/v1/${kind}`, kind === 'attributes' ? { name, type } : { name });
      setNotice(`${label} “${name}” created.`);
      setName('');
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    if (!renaming) return;
    try {
      await call('PUT', `/v1/${kind}/${renaming.item.id}`, { name: renaming.name });
      setNotice(`${label} renamed to “${renaming.name}”.`);
      setRenaming(undefined);
      await load();
    } catch (err) {
      setRenaming({ ...renaming, error: err });
    }
  };
  const remove = async (item: Item) => {
    try {
      await call('DELETE', `/v1/${kind}/${item.id}`);
      setNotice(`${label} “${item.name}” deleted.`);
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const renameErrors = fieldErrorsOf(renaming?.error);

  return (
    <section class="card" aria-labelledby={`${kind}-title`}>
      <h2 id={`${kind}-title`}>{kind === 'attributes' ? 'Attributes' : 'Categories'}</h2>
      <Message error={error} notice={notice} />
      <form class="inline-form" onSubmit={create} noValidate aria-label={`New ${label.toLowerCase()}`}>
        <Field id={`${kind}-new-name`} label={`New ${label.toLowerCase()} name`} errors={errors.name}>
          <input {...described(`${kind}-new-name`, errors.name)} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        {kind === 'attributes' && (
          <Field id="attributes-new-type" label="Type" errors={errors.type}>
            <select {...described('attributes-new-type', errors.type)} value={type} onChange={(e) => setType(e.currentTarget.value)}>
              <option value="string">string</option>
              <option value="number">number</option>
              <option value="boolean">boolean</option>
            </select>
          </Field>
        )}
        <button type="submit" class="primary">
          Add {label.toLowerCase()}
        </button>
      </form>
      {!items ? (
        <p role="status">Loading…</p>
      ) : items.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <table>
          <TableHead columns={kind === 'attributes' ? ['Name', 'Type', 'Actions'] : ['Name', 'Actions']} />
          <tbody>
            {items.map((item) => (
              <tr key={item.id}>
                <td>
                  {renaming?.item.id === item.id ? (
                    <form class="inline-form" onSubmit={rename} noValidate>
                      <Field id={`rename-${item.id}`} label={`New name for ${item.name}`} errors={renameErrors.name}>
                        <input
                          {...described(`rename-${item.id}`, renameErrors.name)}
                          value={renaming.name}
                          onInput={(e) => setRenaming({ ...renaming, name: e.currentTarget.value })}
                        />
                      </Field>
                      <button type="submit" class="primary">
                        Save
                      </button>
                      <button type="button" onClick={() => setRenaming(undefined)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    item.name
                  )}
                </td>
                {kind === 'attributes' && <td>{(item as Attribute).type}</td>}
                <td class="row-actions">
                  <button type="button" onClick={() => setRenaming({ item, name: item.name })} aria-label={`Rename ${item.name}`}>
                    Rename
                  </button>
                  <button type="button" class="danger" onClick={() => setDeleting(item)} aria-label={`Delete ${item.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <Confirm
          title={`Delete ${label.toLowerCase()} “${deleting.name}”?`}
          body={<p>{kind === 'attributes' ? 'Its values are removed from every POI.' : 'Its POIs keep existing without a category.'} This cannot be undone.</p>}
          confirmLabel={`Delete ${label.toLowerCase()}`}
          danger
          onCancel={() => setDeleting(undefined)}
          onConfirm={() => {
            const d = deleting;
            setDeleting(undefined);
            void remove(d);
          }}
        />
      )}
    </section>
  );
}

export function DataPage() {
  return (
    <>
      <PageHeading>Attributes & categories</PageHeading>
      <div class="split">
        <Manager kind="attributes" />
        <Manager kind="categories" />
      </div>
    </>
  );
}

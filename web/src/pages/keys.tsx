import { useEffect, useState } from 'preact/hooks';
import { call, formatDate, PERMISSION_GROUPS } from '../api';
import { Confirm, described, Field, fieldErrorsOf, Message, PageHeading, TableHead } from '../components';

interface Key {
  id: string;
  name: string;
  last_four: string;
  permissions: Array<{ id: number; name: string }>;
  is_active: boolean;
  expires_at: string | null;
  created_at: string | null;
  last_used_at: string | null;
}

const ALL = PERMISSION_GROUPS.flatMap((g) => g.permissions);

function status(k: Key): string {
  if (!k.is_active) return 'inactive';
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return 'expired';
  return 'active';
}

function permissionSummary(k: Key): string {
  if (k.permissions.length === ALL.length) return 'all';
  return k.permissions.map((p) => p.name).join(', ');
}

export function KeysPage() {
  const [keys, setKeys] = useState<Key[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [created, setCreated] = useState<{ key: string; name: string } | undefined>();
  const [confirm, setConfirm] = useState<{ key: Key; action: 'delete' | 'deactivate' } | undefined>();

  const load = () => call<{ data: Key[] }>('GET', '/keys').then((r) => setKeys(r.data), setError);
  useEffect(() => {
    void load();
  }, []);

  const setActive = async (k: Key, active: boolean) => {
    setError(undefined);
    try {
      await call('PUT', `/keys/${k.id}`, { is_active: active });
      setNotice(`Key “${k.name}” ${active ? 'reactivated' : 'deactivated'}.`);
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (k: Key) => {
    setError(undefined);
    try {
      await call('DELETE', `/keys/${k.id}`);
      setNotice(`Key “${k.name}” deleted.`);
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageHeading>API keys</PageHeading>
      <Message error={error} notice={notice} />
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys of your team</h2>
        {!keys ? (
          <p role="status">Loading…</p>
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <TableHead columns={['Name', 'Key', 'Permissions', 'Status', 'Expires', 'Created', 'Last used', 'Actions']} />
              <tbody>
                {keys.map((k) => (
                  <tr key={k.id} data-key-id={k.id}>
                    <td>{k.name}</td>
                    <td>
                      <code>…{k.last_four}</code>
                    </td>
                    <td class="perms">{permissionSummary(k)}</td>
                    <td>
                      <span class={`badge ${status(k)}`}>{status(k)}</span>
                    </td>
                    <td>{formatDate(k.expires_at)}</td>
                    <td>{formatDate(k.created_at)}</td>
                    <td>{formatDate(k.last_used_at)}</td>
                    <td class="row-actions">
                      {k.is_active ? (
                        <button type="button" onClick={() => setConfirm({ key: k, action: 'deactivate' })} aria-label={`Deactivate key ${k.name}`}>
                          Deactivate
                        </button>
                      ) : (
                        <button type="button" onClick={() => setActive(k, true)} aria-label={`Reactivate key ${k.name}`}>
                          Reactivate
                        </button>
                      )}
                      <button type="button" class="danger" onClick={() => setConfirm({ key: k, action: 'delete' })} aria-label={`Delete key ${k.name}`}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateKey
        onCreated={(k) => {
          setCreated(k);
          setNotice(undefined);
          void load();
        }}
      />
      {confirm && (
        <Confirm
          title={confirm.action === 'delete' ? `Delete key “${confirm.key.name}”?` : `Deactivate key “${confirm.key.name}”?`}
          body={
            confirm.action === 'delete' ? (
              <p>Requests with this key will be refused at once. This cannot be undone.</p>
            ) : (
              <p>Requests with this key will be refused at once until you reactivate it.</p>
            )
          }
          confirmLabel={confirm.action === 'delete' ? 'Delete key' : 'Deactivate key'}
          danger
          onCancel={() => setConfirm(undefined)}
          onConfirm={() => {
            const c = confirm;
            setConfirm(undefined);
            void (c.action === 'delete' ? remove(c.key) : setActive(c.key, false));
          }}
        />
      )}
    </>
  );
}

function NewKey({ created, onDone }: { created: { key: string; name: string }; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      (document.getElementById('new-key') as HTMLInputElement | null)?.select();
    }
  };
  return (
    <section class="card new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Key “{created.name}” created</h2>
      <p class="warning" role="alert">
        <strong>Copy this key now.</strong> It is shown only once; Waymark stores only a hash of it.
      </p>
      <div class="copy-row">
        <label for="new-key" class="visually-hidden">
          New API key
        </label>
        <input id="new-key" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="primary" onClick={copy}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
      </div>
      <button type="button" onClick={onDone}>
        I have stored the key
      </button>
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: { key: string; name: string }) => void }) {
  const [name, setName] = useState('');
  const [perms, setPerms] = useState<Set<string>>(new Set(['read-pois']));
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<unknown>();
  const errors = fieldErrorsOf(error);
  const all = perms.size === ALL.length;
  const toggle = (p: string, on: boolean) => {
    const next = new Set(perms);
    if (on) next.add(p);
    else next.delete(p);
    setPerms(next);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const body = {
        name,
        permissions: all ? ['all'] : [...perms],
        expires_at: expires ? new Date(expires).toISOString() : null,
      };
      const r = await call<{ data: { key: string; name: string } }>('POST', '/keys', body);
      onCreated(r.data);
      setName('');
      setExpires('');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="create-key-title" class="card">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit} noValidate>
        <Message error={error} />
        <Field id="key-name" label="Name" errors={errors.name}>
          <input {...described('key-name', errors.name)} value={name} maxLength={255} required onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <fieldset class="permissions" aria-describedby={errors.permissions ? 'perm-error' : undefined}>
          <legend>Permissions</legend>
          <label class="check all">
            <input type="checkbox" checked={all} onChange={(e) => setPerms(new Set(e.currentTarget.checked ? ALL : []))} /> All permissions
          </label>
          <div class="groups">
            {PERMISSION_GROUPS.map((g) => (
              <fieldset key={g.label} class="group">
                <legend>{g.label}</legend>
                {g.permissions.map((p) => (
                  <label key={p} class="check">
                    <input type="checkbox" name="permission" value={p} checked={perms.has(p)} onChange={(e) => toggle(p, e.currentTarget.checked)} /> {p}
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
          {errors.permissions && (
            <small id="perm-error" class="field-error">
              {errors.permissions.join('; ')}
            </small>
          )}
        </fieldset>
        <Field id="key-expires" label="Expires (optional)" errors={errors.expires_at} hint="Leave empty for a key that does not expire.">
          <input
            {...described('key-expires', errors.expires_at, 'x')}
            type="datetime-local"
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
    </section>
  );
}

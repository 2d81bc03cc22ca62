import { useEffect, useRef, useState } from 'preact/hooks';
import { call, formatDate } from '../api';
import { described, Field, fieldErrorsOf, Message, PageHeading, TableHead } from '../components';
import type { Import } from '../api-types';

const MAX_BYTES = 10 * 1024 * 1024;
const done = (i: Import) => i.status === 'completed' || i.status === 'failed';

function ImportDetail({ imp }: { imp: Import }) {
  const pct = imp.total_rows ? Math.round((imp.processed_rows / imp.total_rows) * 100) : 0;
  return (
    <section class="card" aria-labelledby="import-detail-title" data-import-id={imp.id}>
      <h2 id="import-detail-title">Import of {imp.filename}</h2>
      <p role="status" class={`import-status ${imp.status}`}>
        Status: <strong>{imp.status}</strong> · {imp.processed_rows} of {imp.total_rows} rows processed · {imp.created} created · {imp.failed} failed
        {imp.limit_reached ? ' · POI limit reached' : ''}
      </p>
      <progress max={100} value={pct} aria-label={`Import progress: ${pct}%`}>
        {pct}%
      </progress>
      {imp.errors.length > 0 && (
        <div class="table-wrap errors-table">
          <table>
            <caption>Row errors ({imp.errors.length})</caption>
            <TableHead columns={['Line', 'Problem']} numeric={['Line']} />
            <tbody>
              {imp.errors.map((e, i) => (
                <tr key={i}>
                  <td class="num">{e.line}</td>
                  <td>{e.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function ImportsPage() {
  const [list, setList] = useState<Import[]>();
  const [next, setNext] = useState<string | null>(null);
  const [current, setCurrent] = useState<Import>();
  const [file, setFile] = useState<File>();
  const [createMissing, setCreateMissing] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const timer = useRef<number>();
  const errors = fieldErrorsOf(error);

  // Newest first: the API lists by id ascending, so the last page is read (few imports per team).
  const load = async () => {
    const all: Import[] = [];
    let cursor: string | null = null;
    do {
      const r: { data: Import[]; next: string | null } = await call('GET', `/v1/imports?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...r.data);
      cursor = r.next;
    } while (cursor && all.length < 1000);
    setList(all.reverse());
    setNext(cursor);
  };
  useEffect(() => {
    load().catch(setError);
    return () => clearTimeout(timer.current);
  }, []);

  const watch = (id: string) => {
    clearTimeout(timer.current);
    const poll = async () => {
      try {
        const r = await call<{ data: Import }>('GET', `/v1/imports/${id}`);
        setCurrent(r.data);
        if (done(r.data)) await load();
        else timer.current = window.setTimeout(poll, 500);
      } catch (err) {
        setError(err);
      }
    };
    void poll();
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (!file) return setError(Object.assign(new Error('Choose a CSV file.'), { errors: { file: ['is required'] } }));
    if (file.size > MAX_BYTES) return setError(new Error('The file is larger than 10 MB, the limit of an import.'));
    const form = new FormData();
    form.append('create_missing_attributes', String(createMissing));
    form.append('file', file, file.name);
    setBusy(true);
    try {
      const r = await call<{ data: Import }>('POST', '/v1/imports', form);
      setCurrent(r.data);
      watch(r.data.id);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeading>Imports</PageHeading>
      <section class="card" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload a CSV file</h2>
        <p class="hint">
          Columns <code>name</code>, <code>latitude</code>, <code>longitude</code>, optionally <code>category</code> and one column per attribute. Comma or
          semicolon separated, UTF-8, up to 10 MB and 50,000 rows.
        </p>
        <form onSubmit={submit} noValidate>
          <Message error={error} />
          <Field id="import-file" label="CSV file" errors={errors.file}>
            <input {...described('import-file', errors.file)} type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
          </Field>
          <label class="check">
            <input type="checkbox" checked={createMissing} onChange={(e) => setCreateMissing(e.currentTarget.checked)} /> Create missing attributes (as text)
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Uploading…' : 'Upload'}
            </button>
          </div>
        </form>
      </section>
      {current && <ImportDetail imp={current} />}
      <section aria-labelledby="past-title">
        <h2 id="past-title">Past imports</h2>
        {!list ? (
          <p role="status">Loading…</p>
        ) : list.length === 0 ? (
          <p>No imports yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <TableHead columns={['File', 'Status', 'Rows', 'Created', 'Failed', 'Uploaded', 'Finished', 'Details']} numeric={['Rows', 'Created', 'Failed']} />
              <tbody>
                {list.map((i) => (
                  <tr key={i.id}>
                    <td>{i.filename}</td>
                    <td>
                      <span class={`badge ${i.status}`}>{i.status}</span>
                    </td>
                    <td class="num">{i.total_rows}</td>
                    <td class="num">{i.created}</td>
                    <td class="num">{i.failed}</td>
                    <td>{formatDate(i.created_at)}</td>
                    <td>{formatDate(i.finished_at)}</td>
                    <td>
                      <button type="button" onClick={() => (done(i) ? setCurrent(i) : watch(i.id))} aria-label={`Show import of ${i.filename}`}>
                        Show
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {next && <p class="hint">Showing the latest 1,000 imports.</p>}
      </section>
    </>
  );
}

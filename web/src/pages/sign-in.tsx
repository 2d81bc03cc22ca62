import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { described, Field, fieldErrorsOf, Message } from '../components';
import type { SessionInfo } from '../main';

export function SignInPage({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Waymark dashboard';
  }, []);
  const errors = fieldErrorsOf(error);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await call<{ data: SessionInfo }>('POST', '/session', { email, password });
      onSignedIn(r.data);
    } catch (err) {
      setError(err);
      setPassword('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <form onSubmit={submit} class="card" aria-labelledby="sign-in-title" noValidate>
        <h1 id="sign-in-title">Sign in to Waymark</h1>
        <Message error={error} />
        <Field id="email" label="E-mail" errors={errors.email}>
          <input
            {...described('email', errors.email)}
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field id="password" label="Password" errors={errors.password}>
          <input
            {...described('password', errors.password)}
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">
          Users are created with <code>waymark user create --team TEAM --email E</code>.
        </p>
      </form>
    </main>
  );
}

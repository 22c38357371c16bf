// The sign-in form: POST /json/login with the email address and password.
import { useState } from 'preact/hooks';
import { api, ApiFailure, ok, setCsrf } from './api';
import { changed, state } from './store';

/** The sign-in form, shown while signed out. */
export function Login() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(state.error);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const answer = await ok(api.POST('/login', { body: { username: email, password } }));
      setCsrf(answer.csrf_token);
      state.error = '';
      state.signedIn = true;
      changed();
    } catch (failure) {
      setError(
        failure instanceof ApiFailure ? failure.message : 'Could not reach the server: try again.',
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in</h1>
        {error && (
          <p class="alert" role="alert">
            {error}
          </p>
        )}
        <label>
          Email address
          <input
            type="email"
            name="username"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

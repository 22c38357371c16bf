// The one way the web client talks to the server: openapi-fetch, typed by the
// types openapi-typescript generates from openapi.yaml (generated/api.d.ts).
// The contract's paths live under /api/v1; the browser calls the same
// operations under /json, with its session cookie and the CSRF token.
import createClient from 'openapi-fetch';
import type { paths } from '../../generated/api';

let csrfToken = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** The CSRF token of the session, once signed in (empty when signed out). */
export function csrf(): string {
  return csrfToken;
}

/** Remembers the token of a new session (from POST /login). */
export function setCsrf(token: string): void {
  csrfToken = token;
}

/** The generated client, bound to the session-authenticated mirror of the API. */
export const api = createClient<paths>({ baseUrl: '/json' });

api.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken)
      request.headers.set('X-CSRFToken', csrfToken);
    return request;
  },
});

let sessionEnded: () => void = () => undefined;

/** What to do when the server no longer knows the session (any call answered 401). */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

/** A refusal by the server, with its message and code. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The success body of a call, or its refusal thrown as an ApiFailure. */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (data !== undefined && response.ok) return data;
  const body = (error ?? {}) as { msg?: string; code?: string };
  if (response.status === 401 && csrfToken) sessionEnded();
  throw new ApiFailure(
    body.msg ?? `The server answered ${response.status}`,
    body.code ?? 'BAD_REQUEST',
    response.status,
  );
}

/** A multipart body of one file, for the upload operations. */
export function fileForm(field: string, file: Blob, name?: string): FormData {
  const form = new FormData();
  form.append(field, file, name ?? (file as File).name ?? 'file');
  return form;
}

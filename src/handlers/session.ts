// POST /login and POST /logout: the web client's browser session, which the
// /json mirror of the API authenticates by its cookie and CSRF token.
import { ApiError } from '../errors';
import { passwordLogin } from './auth';
import type { Handler, HandlerMap, PublicHandler, PublicHandlerMap } from './types';

/** Signs in with a username and password: the session cookie, and the CSRF token to repeat. */
export const logIn: PublicHandler<'log-in'> = async ({ params, services, host, session }) => {
  if (!session) throw new ApiError('Sessions are not available on this path');
  const user = await passwordLogin(services, host, params.username, params.password);
  const csrfToken = await session.start(user.id);
  return { csrf_token: csrfToken, email: user.email, user_id: user.id };
};

/** Signs out: ends the session the request's cookie names (nothing to end with API credentials). */
export const logOut: Handler<'log-out'> = async ({ session }) => {
  await session?.end();
  return {};
};

/** The session operation that needs no credentials. */
export const sessionPublicHandlers = { 'log-in': logIn } satisfies Partial<PublicHandlerMap>;

/** The session operation that needs credentials. */
export const sessionHandlers = { 'log-out': logOut } satisfies Partial<HandlerMap>;

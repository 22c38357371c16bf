// Handler types, derived from the contract: a handler's parameters and the
// fields of its success response come from generated/api.d.ts, so a handler
// that reads a parameter the operation does not define, or returns a field its
// response does not allow, does not compile.
import type { IncomingHttpHeaders } from 'node:http';
import type { operations } from '../../generated/api';
import type { ParkedAnswer } from '../events/parked';
import type { JsonText } from '../events/queues';
import type { EventStream } from '../events/stream';
import type { UploadedFile } from '../lib/uploads/uploads';
import type { AuthUser } from '../lib/users/credentials';
import type { Services } from '../services';

/** Every operationId of openapi.yaml. */
export type OperationId = keyof operations;

/** No parameters (an object type without fields, neutral in an intersection). */
type NoFields = Record<never, never>;
type Defined<T> = [T] extends [undefined]
  ? NoFields
  : [T] extends [never]
    ? NoFields
    : NonNullable<T>;
type PathOf<K extends OperationId> = operations[K]['parameters'] extends { path?: infer P }
  ? Defined<P>
  : NoFields;
type QueryOf<K extends OperationId> = operations[K]['parameters'] extends { query?: infer Q }
  ? Defined<Q>
  : NoFields;
// The body's fields as the JSON body declares them (the forms carry the same
// fields); a file upload, which has only a multipart body, by that one.
type BodyOf<K extends OperationId> = operations[K] extends { requestBody?: infer B }
  ? Defined<B> extends { content: { 'application/json': infer J } }
    ? J
    : Defined<B> extends { content: { 'multipart/form-data': infer M } }
      ? M
      : NoFields
  : NoFields;

/** The decoded parameters of operation K. */
export type Params<K extends OperationId> = PathOf<K> & QueryOf<K> & BodyOf<K>;

type SuccessOf<K extends OperationId> = operations[K]['responses'] extends {
  200: { content: { 'application/json': infer S } };
}
  ? S
  : never;

/**
 * What a handler returns: the fields of the success body without the
 * envelope's own, or, for an operation whose success is a stream of
 * server-sent events, the stream the HTTP layer writes.
 */
export type Result<K extends OperationId> = operations[K]['responses'] extends {
  200: { content: { 'text/event-stream': unknown } };
}
  ? EventStream
  : Fields<Omit<SuccessOf<K>, 'result' | 'msg' | 'ignored_parameters_unsupported'>>;

/** A handler's answer: its result, or a poll it parked that makes the result when it is answered. */
type Answer<K extends OperationId> = Result<K> | ParkedAnswer<Result<K>>;

/** A success body's fields, each as its value or as that value already written as JSON. */
type Fields<Body> = { [Field in keyof Body]: Body[Field] | JsonText };

/** What every handler receives. */
export interface PublicRequest<K extends OperationId> {
  params: Params<K>;
  services: Services;
  /** The client's address, for rate limits. */
  ip: string;
  /** The Host the client addressed, which names the organization. */
  host: string;
  /** The client's name, from its User-Agent (`ZulipTerminal`, `ZulipPython`, ...). */
  client: string;
  /** Files of a multipart request, by field name. */
  files: Record<string, UploadedFile>;
  /** The request's headers (lower-case names), for the integrations that name their event in one. */
  headers: IncomingHttpHeaders;
  /** The JSON body of an operation whose body is one payload (`x-payload-body`); undefined elsewhere. */
  payload: Record<string, unknown> | undefined;
  /** The browser session of the request, where the HTTP front end offers one (not on the lean path). */
  session?: SessionControl;
}

/** Starts and ends the web client's session of a request (a cookie, set by the HTTP layer). */
export interface SessionControl {
  /** Signs `userId` in with a new session, whose cookie goes with the answer; its CSRF token. */
  start(userId: number): Promise<string>;
  /** Ends the session the request's cookie names, if any, and clears the cookie. */
  end(): Promise<void>;
}

/** What an authenticated handler receives: the request and its user. */
export interface AuthedRequest<K extends OperationId> extends PublicRequest<K>, AuthUser {}

/** Implements an operation that needs credentials. */
export type Handler<K extends OperationId> = (req: AuthedRequest<K>) => Promise<Answer<K>>;
/** Implements an operation that needs none. */
export type PublicHandler<K extends OperationId> = (req: PublicRequest<K>) => Promise<Answer<K>>;

/** The operations that need no credentials (`security: []` in openapi.yaml). */
export type PublicOperationId =
  'fetch-api-key' | 'jwt-fetch-api-key' | 'get-server-settings' | 'log-in';

/** A handler for every operation that needs credentials: a missing one does not compile. */
export type HandlerMap = { [K in Exclude<OperationId, PublicOperationId>]: Handler<K> };
/** A handler for every operation that needs none. */
export type PublicHandlerMap = { [K in PublicOperationId]: PublicHandler<K> };

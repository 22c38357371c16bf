// Code playgrounds: POST /realm/playgrounds and DELETE /realm/playgrounds/{playground_id}.
import { doAddPlayground, doRemovePlayground } from '../actions/realm/playgrounds';
import type { Handler, HandlerMap } from './types';

/** An administrator adds a code playground. */
export const addCodePlayground: Handler<'add-code-playground'> = async ({
  params,
  services,
  user,
}) => ({
  id: await doAddPlayground(services, user, {
    name: params.name,
    pygmentsLanguage: params.pygments_language,
    urlTemplate: params.url_template,
  }),
});

/** An administrator removes a code playground. */
export const removeCodePlayground: Handler<'remove-code-playground'> = async ({
  params,
  services,
  user,
}) => {
  await doRemovePlayground(services, user, params.playground_id);
  return {};
};

/** The operations of this area, by operationId. */
export const playgroundHandlers = {
  'add-code-playground': addCodePlayground,
  'remove-code-playground': removeCodePlayground,
} satisfies Partial<HandlerMap>;

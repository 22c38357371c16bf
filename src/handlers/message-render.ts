// POST /messages/render.
import { render } from '../lib/markdown/render-context';
import type { Handler, HandlerMap } from './types';

/** Renders Markdown as a message of the requester with this content would be rendered. */
export const renderMessage: Handler<'render-message'> = async ({ params, services, realm }) => {
  const rendered = await services.db.read((db) =>
    render(db, realm, params.content, services.config.externalUrl),
  );
  return { rendered: rendered.html };
};

/** The operations of this area, by operationId. */
export const messageRenderHandlers = {
  'render-message': renderMessage,
} satisfies Partial<HandlerMap>;

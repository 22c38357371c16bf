// Incoming webhooks: POST /external/json, the generic JSON integration. The
// request body is the payload itself (x-payload-body), not parameters.
import { doSendWebhookMessage } from '../actions/webhooks/webhooks';
import {
  JSON_WEBHOOK_CLIENT,
  JSON_WEBHOOK_TOPIC,
  jsonWebhookContent,
} from '../lib/webhooks/json-payload';
import type { Handler, HandlerMap } from './types';

/** Posts the payload as a `json` code block, to a channel or to the bot's owner. */
export const jsonWebhook: Handler<'json-webhook'> = async ({
  params,
  payload,
  services,
  user,
  realm,
}) => {
  await doSendWebhookMessage(services, realm, user, {
    stream: params.stream,
    topic: params.topic ?? JSON_WEBHOOK_TOPIC,
    content: jsonWebhookContent(payload),
    client: JSON_WEBHOOK_CLIENT,
  });
  return {};
};

/** The operations of this area, by operationId. */
export const webhookHandlers = {
  'json-webhook': jsonWebhook,
} satisfies Partial<HandlerMap>;

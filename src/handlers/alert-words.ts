// Alert words: GET, POST and DELETE /users/me/alert_words.
import { doAddAlertWords, doRemoveAlertWords } from '../actions/users/alert-words';
import { alertWordsOf } from '../lib/users/alert-words';
import type { Handler, HandlerMap } from './types';

/** Lists the user's alert words. */
export const getAlertWords: Handler<'get-alert-words'> = async ({ services, user }) => ({
  alert_words: await services.db.read((db) => alertWordsOf(db, user.id)),
});

/** Adds alert words; answers with all of them. */
export const addAlertWords: Handler<'add-alert-words'> = async ({ params, services, user }) => ({
  alert_words: await doAddAlertWords(services, user, params.alert_words),
});

/** Removes alert words; answers with the rest. */
export const removeAlertWords: Handler<'remove-alert-words'> = async ({
  params,
  services,
  user,
}) => ({
  alert_words: await doRemoveAlertWords(services, user, params.alert_words),
});

/** The operations of this area, by operationId. */
export const alertWordHandlers = {
  'get-alert-words': getAlertWords,
  'add-alert-words': addAlertWords,
  'remove-alert-words': removeAlertWords,
} satisfies Partial<HandlerMap>;

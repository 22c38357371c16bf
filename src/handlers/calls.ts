// Video calls: GET /calls/bigbluebutton/create.
import { doGetServerSecret } from '../actions/users/server-secrets';
import { BIGBLUEBUTTON_SECRET, bigBlueButtonUrl } from '../lib/calls/bigbluebutton';
import type { Handler, HandlerMap } from './types';

/** The signed address of a new BigBlueButton call, moderated by the requester. */
export const createBigBlueButtonVideoCall: Handler<'create-big-blue-button-video-call'> = async ({
  params,
  services,
  user,
}) => {
  const secret = await doGetServerSecret(services, BIGBLUEBUTTON_SECRET);
  return {
    url: bigBlueButtonUrl(secret, {
      name: params.meeting_name,
      voiceOnly: params.voice_only ?? false,
      moderatorId: user.id,
    }),
  };
};

/** The operations of this area, by operationId. */
export const callHandlers = {
  'create-big-blue-button-video-call': createBigBlueButtonVideoCall,
} satisfies Partial<HandlerMap>;

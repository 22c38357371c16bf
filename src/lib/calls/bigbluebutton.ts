// BigBlueButton call addresses as Zulip makes them: the server's own join page
// carrying the call's details, signed by the server so that a user cannot
// edit them to reach another call.
import { createHmac, randomInt } from 'node:crypto';

/** The server secret that signs call details. */
export const BIGBLUEBUTTON_SECRET = 'bigbluebutton-calls';

/** The page a BigBlueButton call is joined through, relative to the server's root. */
export const BIGBLUEBUTTON_JOIN_PATH = '/calls/bigbluebutton/join';

/** What a call's address carries. */
export interface BigBlueButtonCall {
  /** The meeting's name, as shown in BigBlueButton. */
  name: string;
  /** Whether cameras are off for everyone. */
  voiceOnly: boolean;
  /** The user who may manage the call. */
  moderatorId: number;
}

/** The signed join address of a new call, with a fresh random meeting ID. */
export function bigBlueButtonUrl(secret: Buffer, call: BigBlueButtonCall): string {
  const details = Buffer.from(
    JSON.stringify({
      meeting_id: `zulip-${randomInt(100_000_000_000, 999_999_999_999)}`,
      name: call.name,
      lock_settings_disable_cam: call.voiceOnly,
      moderator: call.moderatorId,
    }),
  ).toString('base64url');
  const signature = createHmac('sha256', secret).update(details).digest('base64url');
  return `${BIGBLUEBUTTON_JOIN_PATH}?bigbluebutton=${details}.${signature}`;
}

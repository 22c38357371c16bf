// What a committed message carries to the things that follow from it (Welcome
// Bot's answer, outgoing webhooks, notification emails): they subscribe to
// sent messages at start-up instead of being called by the send action.
import type { Message, Realm, User } from '../../../generated/prisma/sqlite/client';
import type { MessageEventBody } from '../../events/queues';
import type { Addressee } from './message-send';

/** A message whose transaction has committed, with who received it and how. */
export interface SentMessage {
  realm: Realm;
  sender: User;
  message: Message;
  /** The channel and topic, or the people, it was sent to. */
  to: Addressee;
  /** The message as its event shows it (rendered, without flags). */
  body: MessageEventBody['message'];
  /** The address of the organization the message belongs to. */
  host: string;
  /** People the message mentions by name. */
  mentionedUserIds: Set<number>;
  /** Everyone who received it, with each one's flags. */
  userIds: number[];
  flagsOf: (userId: number) => {
    read: boolean;
    mentioned: boolean;
    streamWildcardMentioned: boolean;
    topicWildcardMentioned: boolean;
    hasAlertWord: boolean;
  };
  /** Recipients for whom the message is muted, and those who follow its topic. */
  mutedFor: number[];
  followedBy: number[];
}

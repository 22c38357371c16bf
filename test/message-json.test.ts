// Unit tests of message-json.ts (no server): the message objects GET
// /messages writes as text are byte for byte JSON.stringify of
// presentMessage's objects, for channel and direct messages, edited and moved
// ones, reactions, search matches, every flag combination and each option.
import { flagsOfBits } from '../src/lib/messages/flags';
import { messagesJson } from '../src/lib/messages/message-json';
import {
  presentMessage,
  type Person,
  type PresentLookups,
  type PresentOptions,
  type PresentedMessage,
} from '../src/lib/messages/messages';
import { EmailVisibility } from '../src/lib/users/users';

const person = (id: number, extra: Partial<Person> = {}): Person => ({
  id,
  email: `user${id}@example.com`,
  fullName: `User "${id}" \u2603`,
  isBot: false,
  emailAddressVisibility: EmailVisibility.EVERYONE,
  avatarSource: 'G',
  avatarVersion: 1,
  avatarHash: null,
  realmId: 1,
  ...extra,
});

const people = [
  person(1),
  person(2, { emailAddressVisibility: EmailVisibility.ADMINS }),
  person(3, { avatarSource: 'U', avatarHash: 'abc', avatarVersion: 4 }),
  person(4, { isBot: true, emailAddressVisibility: EmailVisibility.NOBODY }),
];

const lookups: PresentLookups = {
  userById: new Map(people.map((p) => [p.id, p])),
  streamName: new Map([[7, 'design > "ui"']]),
  reactionsOf: new Map([
    [
      11,
      [
        { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji', user_id: 2 },
        { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji', user_id: 1 },
      ],
    ],
  ]),
};

const message = (id: number, extra: Partial<PresentedMessage> = {}): PresentedMessage => ({
  id,
  senderId: 1,
  streamId: 7,
  dmKey: null,
  topic: 'plans </p>',
  content: 'Hello **there**\n\t"quoted"',
  renderedContent: '<p>Hello <strong>there</strong></p>',
  dateSent: new Date(1_700_000_000_123),
  lastEditTime: null,
  lastMovedTime: null,
  editHistory: null,
  sendingClient: 'ZulipPython',
  isMeMessage: false,
  ...extra,
});

const history = JSON.stringify([
  { timestamp: 1_700_000_100, user_id: 1, prev_content: 'a', prev_rendered_content: '<p>a</p>' },
  { timestamp: 1_700_000_200, user_id: 2, prev_topic: 'old', topic: 'plans </p>' },
]);

const messages: PresentedMessage[] = [
  message(10),
  message(11, { senderId: 2, isMeMessage: true }),
  message(12, { senderId: 3, topic: '' }),
  message(13, {
    senderId: 4,
    editHistory: history,
    lastEditTime: new Date(1_700_000_200_999),
    lastMovedTime: new Date(1_700_000_200_000),
  }),
  message(14, { streamId: null, dmKey: '1,2', topic: '' }),
  message(15, { streamId: null, dmKey: '1,2,3', senderId: 3 }),
  message(16, { streamId: null, dmKey: '1', editHistory: history }),
  message(17, { streamId: 8 }),
];

describe('messagesJson', () => {
  const viewers = [
    { id: 1, role: 400 },
    { id: 5, role: 100 },
    { id: 6, role: 600 },
  ];
  const realms = [1, 2, 3].map((policy) => ({
    stringId: 'zulip',
    messageEditHistoryVisibilityPolicy: policy,
  }));
  const optionSets: PresentOptions[] = [
    { applyMarkdown: true, clientGravatar: true, allowEmptyTopicName: false },
    { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true },
  ];
  const flags = new Map(messages.map((m, i) => [m.id, flagsOfBits(i === 7 ? null : i * 17)]));
  const matches = new Map([[12, { match_content: '<p><span>x</span></p>', match_subject: '' }]]);

  it.each(viewers.flatMap((viewer) => realms.map((realm) => ({ viewer, realm }))))(
    'writes what JSON.stringify makes of presentMessage ($viewer.role, $realm.messageEditHistoryVisibilityPolicy)',
    ({ viewer, realm }) => {
      for (const options of optionSets) {
        const objects = messages.map((m) => {
          const presented = presentMessage(
            m,
            viewer,
            realm,
            'chat.example.com',
            lookups,
            flags.get(m.id)!,
            options,
          );
          const more = matches.get(m.id);
          return more ? Object.assign(presented, more) : presented;
        });
        expect(
          messagesJson(
            messages,
            viewer,
            realm,
            'chat.example.com',
            lookups,
            flags,
            options,
            matches,
          ),
        ).toBe(JSON.stringify(objects));
      }
    },
  );

  it('shares one frozen flag list per combination of bits', () => {
    expect(flagsOfBits(5)).toBe(flagsOfBits(5));
    expect(flagsOfBits(5)).toEqual(['read', 'mentioned']);
    expect(flagsOfBits(null)).toEqual(['read', 'historical']);
    expect(Object.isFrozen(flagsOfBits(0))).toBe(true);
  });
});

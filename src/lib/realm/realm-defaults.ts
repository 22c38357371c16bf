// The `realm` entry of POST /register, part one: what the server reports for
// the organization settings and server facts it has no columns for. Each is
// the value a new Zulip organization has, or the value that says the feature
// is off here (no GIPHY key, no push notification service, no thumbnails).
// realm.ts adds the settings the organization stores, and overrides these.
import {
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
  EMPTY_TOPIC_DISPLAY_NAME,
  SystemGroup,
  type SystemGroupName,
  MIN_DEACTIVATED_REALM_DELETION_DAYS,
} from '../constants';
import { MAX_FILE_UPLOAD_SIZE_MIB } from '../uploads/uploads';
import { OFFLINE_THRESHOLD_SECONDS } from '../users/presence';

/** The public Jitsi server Zulip points video calls at by default. */
export const DEFAULT_JITSI_SERVER_URL = 'https://meet.jit.si';

/** When this process started, in seconds: clients reload when a new server generation appears. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** GIPHY content ratings an organization may allow, by name. */
const giphyRatingOptions = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIPHY content rated Y (very young audience)', id: 1 },
  g: { name: 'Allow GIPHY content rated G (general audience)', id: 2 },
  pg: { name: 'Allow GIPHY content rated PG (parental guidance)', id: 3 },
  pg13: { name: 'Allow GIPHY content rated PG-13 (parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIPHY content rated R (restricted)', id: 5 },
};

/** Video call providers an organization may choose: none, or Jitsi Meet (no Zoom or BigBlueButton keys here). */
const videoChatProviders = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
};

/** The external account types a custom profile field may link to. */
export const defaultExternalAccounts = {
  x: {
    text: 'X',
    url_pattern: 'https://x.com/%(username)s',
    name: 'X username',
    hint: 'Enter your X username',
  },
  github: {
    text: 'GitHub',
    url_pattern: 'https://github.com/%(username)s',
    name: 'GitHub username',
    hint: 'Enter your GitHub username',
  },
};

/**
 * Server facts: limits, timings and capabilities of this server, the same
 * for every organization.
 */
export const serverFacts = {
  development_environment: false,
  server_generation: SERVER_GENERATION,
  server_needs_upgrade: false,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  max_file_upload_size_mib: MAX_FILE_UPLOAD_SIZE_MIB,
  max_message_length: MAX_MESSAGE_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_stream_name_length: MAX_STREAM_NAME_LENGTH,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  server_avatar_changes_disabled: false,
  server_name_changes_disabled: false,
  server_inline_image_preview: true,
  server_inline_url_embed_preview: false,
  server_web_public_streams_enabled: true,
  server_can_summarize_topics: false,
  server_jitsi_server_url: DEFAULT_JITSI_SERVER_URL,
  server_min_deactivated_realm_deletion_days: MIN_DEACTIVATED_REALM_DELETION_DAYS,
  server_max_deactivated_realm_deletion_days: null,
  server_presence_ping_interval_seconds: 60,
  server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECONDS,
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 5000,
  server_typing_started_wait_period_milliseconds: 10000,
  server_thumbnail_formats: [] as unknown[],
  settings_send_digest_emails: true,
  giphy_rating_options: giphyRatingOptions,
  upgrade_text_for_wide_organization_logo: 'Available on Zulip Cloud Standard. Upgrade to access.',
  zulip_plan_is_not_limited: true,
  realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
  realm_available_video_chat_providers: videoChatProviders,
  realm_default_external_accounts: defaultExternalAccounts,
  realm_authentication_methods: { Email: { enabled: true, available: true } },
  realm_email_auth_enabled: true,
  realm_password_auth_enabled: true,
  realm_push_notifications_enabled: false,
  realm_push_notifications_enabled_end_timestamp: null,
  realm_upload_quota_mib: null,
  realm_plan_type: 1,
  realm_is_zephyr_mirror_realm: false,
};

/**
 * Organization settings the server does not store yet, as a new Zulip
 * organization has them. Channel IDs of -1 mean "no channel".
 */
export const unstoredRealmSettings = {
  realm_avatar_changes_disabled: false,
  realm_name_changes_disabled: false,
  realm_email_changes_disabled: false,
  realm_default_code_block_language: '',
  realm_digest_emails_enabled: false,
  realm_digest_weekday: 1,
  realm_disallow_disposable_email_addresses: true,
  realm_emails_restricted_to_domains: false,
  realm_enable_guest_user_dm_warning: true,
  realm_enable_guest_user_indicator: true,
  realm_enable_spectator_access: false,
  realm_giphy_rating: giphyRatingOptions.g.id,
  realm_icon_source: 'G',
  realm_inline_url_embed_preview: false,
  realm_jitsi_server_url: null,
  jitsi_server_url: DEFAULT_JITSI_SERVER_URL,
  realm_logo_source: 'D',
  realm_logo_url: '/static/images/logo/zulip-org-logo.svg?version=0',
  realm_night_logo_source: 'D',
  realm_night_logo_url: '/static/images/logo/zulip-org-logo.svg?version=0',
  realm_message_content_allowed_in_email_notifications: true,
  realm_message_content_delete_limit_seconds: null,
  realm_new_stream_announcements_stream_id: -1,
  realm_signup_announcements_stream_id: -1,
  realm_zulip_update_announcements_stream_id: -1,
  realm_org_type: 0,
  realm_presence_disabled: false,
  realm_require_unique_names: false,
  realm_send_welcome_emails: true,
  realm_video_chat_provider: videoChatProviders.jitsi_meet.id,
  realm_want_advertise_in_communities_directory: false,
};

/**
 * Group-valued organization permissions the server does not store yet: the
 * system group a new Zulip organization gives each.
 */
export const unstoredRealmGroupSettings: Record<string, SystemGroupName> = {
  can_create_bots_group: SystemGroup.MEMBERS,
  can_create_write_only_bots_group: SystemGroup.MEMBERS,
  can_manage_billing_group: SystemGroup.ADMINISTRATORS,
  can_set_delete_message_policy_group: SystemGroup.MODERATORS,
  can_set_topics_policy_group: SystemGroup.MODERATORS,
  can_summarize_topics_group: SystemGroup.EVERYONE,
  create_multiuse_invite_group: SystemGroup.ADMINISTRATORS,
  direct_message_initiator_group: SystemGroup.EVERYONE,
  direct_message_permission_group: SystemGroup.EVERYONE,
};

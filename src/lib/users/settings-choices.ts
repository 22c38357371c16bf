// The values some personal settings choose from: languages the interface
// speaks, notification sounds, emoji sets, and time zones; and the checks of
// the settings whose rules the contract cannot state.
import { ApiError } from '../../errors';

/** The interface languages a user may pick, by code, with each language's own name. */
export const languages: Record<string, string> = {
  ar: 'عربي',
  be: 'Беларуская',
  bg: 'Български',
  bn: 'বাংলা',
  ca: 'Català',
  cs: 'Čeština',
  cy: 'Cymraeg',
  da: 'Dansk',
  de: 'Deutsch',
  el: 'Ελληνικά',
  en: 'English',
  en_GB: 'British English',
  eo: 'Esperanto',
  es: 'Español',
  fa: 'فارسی',
  fi: 'Suomi',
  fr: 'Français',
  gl: 'Galego',
  gu: 'ગુજરાતી',
  hi: 'हिंदी',
  hu: 'Magyar',
  id: 'Bahasa Indonesia',
  it: 'Italiano',
  ja: '日本語',
  ko: '한국어',
  lt: 'Lietuviškai',
  lv: 'Latviešu',
  ml: 'മലയാളം',
  mn: 'Монгол',
  nl: 'Nederlands',
  no: 'Norsk',
  pa: 'ਪੰਜਾਬੀ',
  pl: 'Polski',
  pt: 'Português',
  pt_BR: 'Português Brasileiro',
  pt_PT: 'Português Europeu',
  ro: 'Română',
  ru: 'Русский',
  si: 'සිංහල',
  sk: 'Slovenčina',
  sr: 'Српски',
  sv: 'Svenska',
  ta: 'தமிழ்',
  te: 'తెలుగు',
  tl: 'Tagalog',
  tr: 'Türkçe',
  uk: 'Українська',
  uz: 'Oʻzbekcha',
  vi: 'Tiếng Việt',
  zh_Hans: '简体中文',
  zh_Hant: '繁體中文',
  zh_TW: '中文 (台灣)',
};

/** The notification sounds a user may pick (besides `none`, for silence). */
export const notificationSounds = ['chime', 'ding', 'zulip'];

/** The emoji sets a user may pick, with the names settings pages show. */
export const emojisetChoices = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
];

/** Whether `zone` names a time zone of the IANA database. */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Longest wait before notification emails go out, in seconds (a week). */
export const MAX_EMAIL_BATCHING_PERIOD_SECONDS = 7 * 24 * 60 * 60;

/**
 * Refuses, with Zulip's messages, settings whose value is of the right type
 * but not one the server accepts.
 */
export function checkSettingValues(settings: {
  timezone?: unknown;
  default_language?: unknown;
  notification_sound?: unknown;
  email_notifications_batching_period_seconds?: unknown;
}): void {
  const { timezone, default_language, notification_sound } = settings;
  const period = settings.email_notifications_batching_period_seconds;
  if (typeof timezone === 'string' && !isTimeZone(timezone))
    throw new ApiError('timezone is not a recognized time zone');
  if (typeof default_language === 'string' && !Object.hasOwn(languages, default_language))
    throw new ApiError('Invalid default_language');
  if (
    typeof notification_sound === 'string' &&
    notification_sound !== 'none' &&
    !notificationSounds.includes(notification_sound)
  )
    throw new ApiError(`Invalid notification sound '${notification_sound}'`);
  if (typeof period === 'number' && (period <= 0 || period > MAX_EMAIL_BATCHING_PERIOD_SECONDS))
    throw new ApiError(`Invalid email batching period: ${period} seconds`);
}

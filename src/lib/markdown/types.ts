// The contract between the Markdown renderer and its callers: what the caller
// looks up for us (RenderContext) and what a rendering reports (RenderResult).
import type MarkdownIt from 'markdown-it';
import type { UrlTemplate } from './url-template';

/** Lookups the renderer needs; the caller fetches the rows named by mentionCandidates(). */
export interface RenderContext {
  /** The active user whose full name is `name` (the caller decides how names compare). */
  userByName(name: string): { id: number; fullName: string } | undefined;
  /** The active user with this id. */
  userById(id: number): { id: number; fullName: string } | undefined;
  /** The user group called `name`. */
  groupByName(name: string): { id: number; name: string } | undefined;
  /** The channel called `name` that the sender may link to. */
  streamByName(name: string): { id: number; name: string } | undefined;
  /** The active custom emoji called `name`, with the URL of its image. */
  realmEmojiByName(name: string): { id: number; name: string; url: string } | undefined;
  /** The realm's URL without a trailing slash, e.g. http://chat.example.com. */
  baseUrl: string;
  /** The organization's linkifiers, in the order they apply (none when absent). */
  linkifiers?: CompiledLinkifier[];
  /** The organization's inline_image_preview setting (previews are on when absent). */
  inlineImagePreview?: boolean;
  /**
   * Whether the organization holds an uploaded image at this path id; when
   * absent (or undefined), the file name's extension decides.
   */
  isUploadedImage?(pathId: string): boolean | undefined;
}

/** A linkifier ready to run: group 1 of `regex` precedes the match, group 2 is the linked text. */
export interface CompiledLinkifier {
  regex: RegExp;
  template: UrlTemplate;
}

/** A rendered message: its HTML and the facts the message store keeps about it. */
export interface RenderResult {
  /** Sanitized HTML, in Zulip's shapes. */
  html: string;
  /** Users mentioned with @**Name** outside quotes (not silent, not wildcards). */
  mentionedUserIds: Set<number>;
  /** Users mentioned silently: @_**Name**, or any user mention inside a quote. */
  silentlyMentionedUserIds: Set<number>;
  /** Groups mentioned with @*group* outside quotes (not silent). */
  mentionedGroupIds: Set<number>;
  /** @**all**, @**everyone**, @**channel** or @**stream**, not silent. */
  streamWildcard: boolean;
  /** @**topic**, not silent. */
  topicWildcard: boolean;
  /** Whether the HTML holds any link (including channel and topic links). */
  hasLink: boolean;
  /** Whether some link points to an uploaded image file, or an image preview was added. */
  hasImage: boolean;
  /** Whether some link points to an uploaded file. */
  hasAttachment: boolean;
  /** Path ids of the uploaded files linked to (the part after /user_uploads/), in order, once each. */
  uploadPathIds: string[];
}

/** HTML fragments of one rendering that skip the sanitizer (see trusted.ts). */
export interface TrustedFragments {
  /** Random per rendering, so that message text cannot forge a marker. */
  nonce: string;
  /** The fragments, by marker index. */
  html: string[];
}

/** The per-rendering state carried through markdown-it as its `env`. */
export type ZulipEnv = {
  ctx: RenderContext;
  result: RenderResult;
  trusted: TrustedFragments;
};

/** The ZulipEnv of a parser state (core, block or inline). */
export function envOf(state: { env: MarkdownIt.Env }): ZulipEnv {
  return state.env as ZulipEnv;
}

/** A fresh, empty result (html filled in at the end). */
export function emptyResult(): RenderResult {
  return {
    html: '',
    mentionedUserIds: new Set(),
    silentlyMentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    streamWildcard: false,
    topicWildcard: false,
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
    uploadPathIds: [],
  };
}

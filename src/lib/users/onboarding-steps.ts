// Onboarding steps: the one-time notices and actions a client offers a new
// user, and which of them the user still has ahead.
import type { Db } from '../../db/client';
import type { StateProvider } from '../state';

/** Every onboarding step Zulip's clients know, in the order they are offered. */
export const onboardingSteps = [
  { type: 'one_time_notice', name: 'visibility_policy_banner' },
  { type: 'one_time_notice', name: 'intro_inbox_view_modal' },
  { type: 'one_time_notice', name: 'intro_recent_view_modal' },
  { type: 'one_time_notice', name: 'first_stream_created_banner' },
  { type: 'one_time_notice', name: 'jump_to_conversation_banner' },
  { type: 'one_time_notice', name: 'non_interleaved_view_messages_fading' },
  { type: 'one_time_notice', name: 'interleaved_view_messages_fading' },
  { type: 'one_time_notice', name: 'intro_resolve_topic' },
  { type: 'one_time_notice', name: 'navigation_tour_video' },
  { type: 'one_time_action', name: 'narrow_to_dm_with_welcome_bot_new_user' },
] as const;

// Steps this server never offers: it has no navigation tour video.
const neverOffered = new Set(['navigation_tour_video']);

/** Whether `name` is an onboarding step. */
export function isOnboardingStep(name: string): boolean {
  return onboardingSteps.some((step) => step.name === name);
}

/** The onboarding steps the user has not marked as read, in order. */
export async function pendingOnboardingSteps(db: Db, userId: number) {
  const seen = await db.onboardingStep.findMany({
    where: { userId },
    select: { onboardingStep: true },
  });
  const done = new Set([...neverOffered, ...seen.map((s) => s.onboardingStep)]);
  return onboardingSteps.filter((step) => !done.has(step.name)).map((step) => ({ ...step }));
}

/** `onboarding_steps`: the steps the user has ahead; no tour video is offered. */
export const onboardingStepsState: StateProvider = async ({ db, user }) => ({
  onboarding_steps: await pendingOnboardingSteps(db, user.id),
  navigation_tour_video_url: null,
});

// Onboarding steps: POST /users/me/onboarding_steps.
import { doMarkOnboardingStepAsRead } from '../actions/users/onboarding-steps';
import type { Handler, HandlerMap } from './types';

/** The user marks an onboarding step as read. */
export const markOnboardingStepAsRead: Handler<'mark-onboarding-step-as-read'> = async ({
  params,
  services,
  user,
}) => {
  await doMarkOnboardingStepAsRead(services, user, params.onboarding_step);
  return {};
};

/** The operations of this area, by operationId. */
export const onboardingStepHandlers = {
  'mark-onboarding-step-as-read': markOnboardingStepAsRead,
} satisfies Partial<HandlerMap>;

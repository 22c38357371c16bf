// Marking an onboarding step as read. The user's clients get the steps still
// ahead in an `onboarding_steps` event after it commits.
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { isOnboardingStep, pendingOnboardingSteps } from '../../lib/users/onboarding-steps';
import type { Services } from '../../services';

/** A human user marks an onboarding step as read; marking it again changes nothing but still notifies. */
export async function doMarkOnboardingStepAsRead(
  services: Services,
  user: User,
  step: string,
): Promise<void> {
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  if (!isOnboardingStep(step)) throw new ApiError(`Unknown onboarding_step: ${step}`);
  await services.db.write(async (tx, onCommit) => {
    await tx.onboardingStep.upsert({
      where: { userId_onboardingStep: { userId: user.id, onboardingStep: step } },
      create: { userId: user.id, onboardingStep: step },
      update: {},
    });
    const pending = await pendingOnboardingSteps(tx, user.id);
    onCommit(() =>
      services.bus.publish({ type: 'onboarding_steps', onboarding_steps: pending }, [user.id]),
    );
  });
}

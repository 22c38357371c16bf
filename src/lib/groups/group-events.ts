// Delivery of user_group events, which depends on each client: clients that
// registered with the `include_deactivated_groups` capability see deactivated
// groups and get every event; the others see a deactivation as `remove`, a
// reactivation as `add`, and nothing about groups while they are deactivated.
import type { EventBus, Recipients } from '../../events/bus';
import type { EventBody, EventOf } from '../../events/queues';

/** What the deliverer needs to know about the group an event concerns. */
export interface GroupEventContext {
  /** Whether the group is deactivated after the change. */
  deactivated: boolean;
  /** The group in its read form, for the `add` a reactivation becomes. */
  group?: EventOf<'user_group', 'add'>['group'];
}

/** The event a client without the capability gets instead of `event`, or null for none. */
function forLegacyClient(
  event: EventOf<'user_group'>,
  context: GroupEventContext,
): EventBody | null {
  if (event.op === 'update' && 'deactivated' in event.data) {
    if (event.data.deactivated === true)
      return { type: 'user_group', op: 'remove', group_id: event.group_id };
    return context.group ? { type: 'user_group', op: 'add', group: context.group } : null;
  }
  return context.deactivated ? null : event;
}

/**
 * Publishes a user_group event about one group to `to`: clients with the
 * `include_deactivated_groups` capability get it as it is, the others the
 * form they understand (or nothing).
 */
export function publishGroupEvent(
  bus: EventBus,
  to: Recipients,
  event: EventOf<'user_group'>,
  context: GroupEventContext,
): void {
  bus.publish(event, to, {
    capability: 'include_deactivated_groups',
    event: forLegacyClient(event, context),
  });
}

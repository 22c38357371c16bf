// Validates events against their own schemas in openapi.yaml. GET /events is
// checked as a whole against the contract too, but a oneOf of every event
// says little when it fails; here each event is checked against the
// schema(s) of its `type` and `op`, and a failure names the event, the
// schema and what is wrong. test/support/server.ts runs it on every GET
// /events a test makes; tests that read events another way call checkEvents.
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { readContract, specPath } from '../../src/http/spec';
import { cachedSchemas } from './compiled-cache';

interface EventSchema {
  name: string;
  type: string;
  op: string | undefined;
  validate: ValidateFunction;
}

let schemas: EventSchema[] | undefined;

/** The event schemas of openapi.yaml (the branches of `Event`), compiled once for the whole run. */
function eventSchemas(): EventSchema[] {
  if (schemas) return schemas;
  const spec = readContract(specPath) as unknown as {
    components: { schemas: Record<string, Record<string, any>> };
  };
  const branches = (spec.components.schemas.Event.oneOf as { $ref: string }[]).map(({ $ref }) =>
    $ref.split('/').pop()!,
  );
  const validators = cachedSchemas('events', () => {
    // The same options as the server's validators (src/http/spec.ts), with every error reported.
    // Ajv's compiler is loaded only to compile: the cache has them after the first file.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: Compiler } = require('ajv') as { default: typeof Ajv };
    const ajv = new Compiler({
      strict: false,
      strictNumbers: true,
      allErrors: true,
      validateFormats: false,
      code: { source: true },
    });
    ajv.addSchema({ components: spec.components }, 'openapi');
    const refs: Record<string, string> = {};
    for (const name of branches) refs[name] = `openapi#/components/schemas/${name}`;
    return { ajv, refs };
  });
  schemas = branches.map((name) => {
    const properties = spec.components.schemas[name].properties;
    return {
      name,
      type: properties.type.enum[0],
      op: properties.op?.enum[0],
      validate: validators[name],
    };
  });
  return schemas;
}

/**
 * Throws, naming the event and the problem, unless every event matches a
 * schema of its type (and op) in openapi.yaml.
 */
export function checkEvents(events: unknown[]): void {
  for (const event of events) {
    const { type, op } = (event ?? {}) as { type?: unknown; op?: unknown };
    const candidates = eventSchemas().filter(
      (s) => s.type === type && (s.op === undefined || s.op === op),
    );
    const shown = JSON.stringify(event).slice(0, 2000);
    if (candidates.length === 0)
      throw new Error(
        `event of type ${JSON.stringify(type)}${op === undefined ? '' : ` and op ${JSON.stringify(op)}`} has no schema in openapi.yaml (add one to Event's oneOf): ${shown}`,
      );
    if (candidates.some((s) => s.validate(event))) continue;
    const problems = candidates
      .map((s) => {
        s.validate(event);
        const errors = (s.validate.errors ?? [])
          .map(
            (e) =>
              `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
          )
          .join('; ');
        return `${s.name}: ${errors}`;
      })
      .join('\n  ');
    throw new Error(
      `event does not match its schema in openapi.yaml:\n  ${problems}\nevent: ${shown}`,
    );
  }
}

/** An event as GET /events answers it: its ID, and the fields of its type. */
export interface QueueEvent {
  id: number;
  [field: string]: any;
}

/**
 * The events without their IDs, once their IDs are checked to increase. IDs
 * are consecutive in one process's memory, and positions in the shared log
 * (increasing, skipping numbers) with Redis: tests compare the rest.
 */
export function withoutIds<T extends { id: number }>(events: T[]): Omit<T, 'id'>[] {
  events.forEach((event, i) => {
    if (i > 0 && !(event.id > events[i - 1].id))
      throw new Error(`event IDs do not increase: ${events.map((e) => e.id).join(', ')}`);
  });
  return events.map(({ id: _id, ...rest }) => rest);
}

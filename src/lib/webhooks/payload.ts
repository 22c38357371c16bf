// Reading an integration's payload, whose shape the sending service decides:
// each value is taken through a checked accessor that names where it sits
// (`payload["issue"]["title"]`), so that a payload of the wrong shape is
// refused with a 400 saying what was wrong, before anything is posted.
import { badRequest } from '../../errors';

/** A value somewhere in a payload, with the path that names it in errors. */
export class PayloadValue {
  constructor(
    /** The JSON value itself. */
    readonly value: unknown,
    /** Where it sits, as errors name it: `payload["issue"]["title"]`. */
    readonly path: string = 'payload',
  ) {}

  private fail(what: string): never {
    throw badRequest(`${this.path} is not ${what}`);
  }

  /** The members of an object; refused for anything else. */
  private object(): Record<string, unknown> {
    const v = this.value;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail('a dict');
    return v as Record<string, unknown>;
  }

  private child(key: string): PayloadValue {
    return new PayloadValue(this.object()[key], `${this.path}["${key}"]`);
  }

  /** Whether this object has `key` with a value other than null. */
  has(key: string): boolean {
    const v = this.object()[key];
    return v !== undefined && v !== null;
  }

  /** The member `key` of this object; refused when it is missing or null. */
  get(key: string): PayloadValue {
    const child = this.child(key);
    if (child.value === undefined || child.value === null)
      throw badRequest(`${child.path} field is missing`);
    return child;
  }

  /** The member `key`, or undefined when it is missing or null. */
  opt(key: string): PayloadValue | undefined {
    return this.has(key) ? this.child(key) : undefined;
  }

  /** The text of this value. */
  str(): string {
    return typeof this.value === 'string' ? this.value : this.fail('a string');
  }

  /** The text of this value, which must be one of `choices`. */
  oneOf<T extends string>(choices: readonly T[]): T {
    const text = this.str();
    if (!(choices as readonly string[]).includes(text)) throw badRequest(`Invalid ${this.path}`);
    return text as T;
  }

  /** The integer of this value. */
  int(): number {
    return Number.isSafeInteger(this.value) ? (this.value as number) : this.fail('an integer');
  }

  /** The number of this value. */
  num(): number {
    return typeof this.value === 'number' && Number.isFinite(this.value)
      ? this.value
      : this.fail('a float');
  }

  /** The boolean of this value. */
  bool(): boolean {
    return typeof this.value === 'boolean' ? this.value : this.fail('a boolean');
  }

  /** The items of a list. */
  list(): PayloadValue[] {
    if (!Array.isArray(this.value)) this.fail('a list');
    return (this.value as unknown[]).map((item, i) => new PayloadValue(item, `${this.path}[${i}]`));
  }

  /** The members of an object, in order. */
  entries(): [string, PayloadValue][] {
    return Object.keys(this.object()).map((key) => [key, this.child(key)]);
  }

  /** The text of member `key`; refused when missing. */
  text(key: string): string {
    return this.get(key).str();
  }

  /** The text of member `key`, or undefined when it is missing, null or empty. */
  optText(key: string): string | undefined {
    const text = this.opt(key)?.str();
    return text === '' ? undefined : text;
  }
}

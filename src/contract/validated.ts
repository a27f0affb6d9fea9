/**
 * Request parts as the compiled validator hands them on. A schema's `default` is the one home of a
 * parameter's default: Fastify's validator fills it in (useDefaults), /openapi.json shows it, and
 * Validated<> types the parameter as always present, so no service repeats the number.
 */
import type { Static, TObject, TSchema } from 'typebox'

/** `schema` with its default, marked in its type so that Validated<> knows the validator fills it in. */
export const Defaulted = <T extends TSchema>(schema: T, value: Static<T>): T & { default: Static<T> } =>
  Object.assign(schema, { default: value })

type DefaultedKeys<P> = { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P]

/** The static type of an object schema once validated: parameters with a default are present. */
export type Validated<S extends TObject> = Static<S> & {
  [K in DefaultedKeys<S['properties']> & keyof Static<S>]-?: Exclude<Static<S>[K], undefined>
}

/**
 * The spec's field tables of its resources (with the comment, reaction and profile-detail shapes the
 * spec leaves open and we settled), transcribed, against the contract schemas:
 * every listed field exists, and "present", "present but possibly null" and "may be omitted" match
 * exactly. The schemas are closed, so no unlisted field can slip into a response either.
 */
import type { TSchema } from 'typebox'
import { describe, expect, it } from 'vitest'
import { SPEC_FIELDS, type Presence } from '../helpers/spec-fields.ts'

function presenceOf(schema: TSchema & { properties: Record<string, TSchema>; required?: string[] }, field: string): Presence {
  const prop = schema.properties[field] as TSchema & { anyOf?: { type?: string }[] }
  if (!(schema.required ?? []).includes(field)) return 'O'
  return prop.anyOf?.some((s) => s.type === 'null') ? 'N' : 'R'
}

describe.each(Object.entries(SPEC_FIELDS))('%s', (_name, { schema, fields }) => {
  const s = schema as TSchema & { properties: Record<string, TSchema>; required?: string[]; additionalProperties?: boolean }

  it('has exactly the spec fields', () => {
    expect(Object.keys(s.properties).sort()).toEqual(Object.keys(fields).sort())
    expect(s.additionalProperties).toBe(false)
  })

  it.each(Object.entries(fields))('%s is %s', (field, presence) => {
    expect(presenceOf(s, field)).toBe(presence)
  })
})

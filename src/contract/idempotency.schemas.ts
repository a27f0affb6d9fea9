/**
 * What /openapi.json says of Idempotency-Key: the request header every data operation takes, and the
 * header of an answer repeated for it. Documentation only: the gateway reads and checks the header
 * itself (idempotency/idempotency-key.ts), so its refusal names it in the API's own words.
 */
import Type from 'typebox'
import type { HeaderDocs } from './responses.schemas.ts'

/** The request headers of a data operation, as @fastify/swagger turns them into header parameters. */
export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'A key of your own (1 to 255 printable ASCII characters, such as a UUID) naming this request. Sent again with the same ' +
        'request within 24 hours, it gets the first answer back, free, instead of running the call again; with another request it is a 400.',
    }),
  ),
})

/** On an answer repeated for an Idempotency-Key. */
export const IDEMPOTENT_REPLAYED: HeaderDocs = {
  'Idempotent-Replayed': {
    type: 'string',
    description: "'true' on the first answer to this Idempotency-Key sent again (X-Credits-Charged: 0); absent on a call that ran",
  },
}

import { Type } from 'typebox';
import { LiveChange } from '../live/live-events.js';
import { SECRET_PATTERN } from './webhook-signing.js';

/** The change types a webhook may ask for: the live channel's, one by one. */
export const CHANGE_TYPES: string[] = LiveChange.anyOf.map((member) => member.properties.type.const as string);

/** The type of the delivery `POST .../test` sends. */
export const TEST_EVENT = 'webhook.test';

const Url = Type.String({
  minLength: 8,
  maxLength: 2000,
  pattern: '^https?://\\S+$',
  description: 'http or https; loopback and private addresses are refused unless OUTBOUND_ALLOW_PRIVATE=true',
});
const Events = Type.Array(Type.Enum(CHANGE_TYPES), {
  minItems: 1,
  maxItems: CHANGE_TYPES.length,
  uniqueItems: true,
  description: 'The change types delivered; left out: every type',
});

export const NewWebhook = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    secret: Type.Optional(
      Type.String({
        pattern: SECRET_PATTERN,
        description: '`whsec_` and the base64 of 24 to 64 bytes; left out: made',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookChanges = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Type.Union([Events, Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const WebhookFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every type' }),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the service disabled it (repeated failures); null when enabled or disabled by its owner',
  }),
  createdAt: Type.Integer(),
};

export const Webhook = Type.Object(WebhookFields);

export const CreatedWebhook = Type.Object({
  ...WebhookFields,
  secret: Type.String({ description: 'The signing secret, shown only in this answer' }),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'The `webhook-id` of its requests (the same on every attempt)' }),
  eventType: Type.String(),
  attempt: Type.Integer({ description: 'Attempts made so far' }),
  status: Type.Enum(['pending', 'delivered', 'failed']),
  at: Type.Union([Type.Integer(), Type.Null()], { description: 'The last attempt; null before the first' }),
  responseStatus: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's status at the last attempt; null when it did not answer",
  }),
  responseExcerpt: Type.Union([Type.String(), Type.Null()], {
    description: "The start of the receiver's answer, or why the attempt failed",
  }),
});

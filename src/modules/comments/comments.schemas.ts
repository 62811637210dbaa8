import { Type, type Static } from 'typebox';

const Author = Type.Object({
  kind: Type.Enum(['user', 'token']),
  id: Type.String(),
  name: Type.Optional(
    Type.String({ description: "The user's name, else e-mail; the token's name (left out for a revoked token)" }),
  ),
});
const Body = Type.String({
  minLength: 1,
  maxLength: 5000,
  description: 'Not empty or blank, at most 5,000 characters',
});

export const CreateCommentBody = Type.Object(
  {
    objectId: Type.String({ minLength: 1, maxLength: 200 }),
    objectType: Type.Enum(['marker', 'layer', 'drawing']),
    body: Body,
    objectName: Type.Optional(Type.String({ maxLength: 500 })),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  },
  { additionalProperties: false },
);
export type CreateCommentInput = Static<typeof CreateCommentBody>;

export const ReplyBody = Type.Object({ body: Body }, { additionalProperties: false });
export const ResolveBody = Type.Object({ resolved: Type.Boolean() }, { additionalProperties: false });

export const CommentQuery = Type.Object({
  objectId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  objectType: Type.Optional(Type.Enum(['marker', 'layer', 'drawing'])),
  resolved: Type.Optional(Type.Boolean()),
});
export type CommentQuery = Static<typeof CommentQuery>;

export const Reply = Type.Object({
  id: Type.String({ description: '`reply-<suffix>`' }),
  commentId: Type.String(),
  body: Type.String(),
  author: Author,
  createdAt: Type.Integer(),
});

export const Comment = Type.Object({
  id: Type.String({ description: '`comment-<suffix>`' }),
  objectId: Type.String(),
  objectType: Type.String(),
  objectName: Type.Union([Type.String(), Type.Null()]),
  body: Type.String(),
  lat: Type.Union([Type.Number(), Type.Null()]),
  lng: Type.Union([Type.Number(), Type.Null()]),
  resolved: Type.Boolean(),
  author: Author,
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  replies: Type.Array(Reply),
});

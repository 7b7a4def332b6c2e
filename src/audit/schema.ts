import { Type } from 'typebox';
import { ref, Timestamp, Uuid } from '../http/schemas.js';
import { AUDIT_ENTITIES } from './record.js';

const AuditValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
const EntityName = Type.String({ enum: [...AUDIT_ENTITIES], description: 'what the entry is about' });

export const AuditEntrySchema = Type.Object(
  {
    id: Uuid,
    at: Timestamp,
    actor: Type.Object({
      type: Type.String({
        enum: ['user', 'api_key', 'chat', 'system'],
        description:
          'user: a dashboard user; api_key: an API key; chat: a user over WhatsApp chat; system: the CLI, a worker, the payment gateway or bank matching',
      }),
      id: Type.Union([Type.String(), Type.Null()], { description: "the user's or the key's id; null for system" }),
      name: Type.Union([Type.String(), Type.Null()], {
        description: "the user's name, or the key's prefix; null for system",
      }),
    }),
    action: Type.String({ description: 'what was done, e.g. transaction.created, receipt.reversed' }),
    entity: EntityName,
    entity_id: Type.String(),
    changes: Type.Record(Type.String(), Type.Array(AuditValue, { minItems: 2, maxItems: 2 }), {
      description: 'each audited field that changed: [before, after] (null: absent)',
    }),
    request_id: Type.Union([Type.String(), Type.Null()], {
      description: 'the X-Request-Id of the request that made the change; null outside a request',
    }),
  },
  { $id: 'AuditEntry' },
);

export const ListAuditQuery = Type.Object(
  {
    entity: Type.Optional(EntityName),
    entity_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'one entity (needs entity): its id' }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'entries at or after this time' })),
    starting_after: Type.Optional({
      ...Uuid,
      description: 'id of the last entry of the previous page: the page of older entries, same filters',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);

export const AuditPage = Type.Object({
  data: Type.Array(ref(AuditEntrySchema)),
  limit: Type.Integer(),
  hasMore: Type.Boolean({ description: 'older entries follow: ask again with starting_after = the last id' }),
});

-- Account webhooks. The facts they report are already durable where they happen (a plan lot granted,
-- a subscription event, an order paid, a pack's expiry, a balance): webhook_events records each once
-- under an id made from the fact, in the same transaction as its deliveries, so every node may look
-- for new facts and none sends one twice. A delivery is retried with backoff for a day.
CREATE TABLE webhooks (
  id          text COLLATE "C" PRIMARY KEY,
  account_id  text COLLATE "C" NOT NULL REFERENCES accounts (id),
  url         text NOT NULL,
  events      text[] NOT NULL,
  secret      text NOT NULL,
  enabled     boolean NOT NULL DEFAULT true,
  created_at  bigint NOT NULL,
  seq         bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at, seq);

-- The credits.low threshold, and whether the low and exhausted alerts were sent since the balance was
-- last above them (each is sent once per fall).
CREATE TABLE webhook_alerts (
  account_id       text COLLATE "C" PRIMARY KEY REFERENCES accounts (id),
  low_credits      bigint CHECK (low_credits >= 0),
  low_sent         boolean NOT NULL DEFAULT false,
  exhausted_sent   boolean NOT NULL DEFAULT false,
  -- Falls counted so far: the id of each fall's event, the same on every node that sees it.
  low_round        integer NOT NULL DEFAULT 0,
  exhausted_round  integer NOT NULL DEFAULT 0
);

CREATE TABLE webhook_events (
  id          text COLLATE "C" PRIMARY KEY,
  account_id  text COLLATE "C" NOT NULL,
  type        text NOT NULL,
  created_at  bigint NOT NULL,
  body        text NOT NULL
);

CREATE TABLE webhook_deliveries (
  id            text COLLATE "C" PRIMARY KEY,
  event_id      text COLLATE "C" NOT NULL REFERENCES webhook_events (id),
  webhook_id    text COLLATE "C" NOT NULL,
  state         text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  next_at       bigint NOT NULL,
  lease_until   bigint NOT NULL DEFAULT 0,
  created_at    bigint NOT NULL,
  seq           bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, seq DESC);

CREATE TABLE webhook_attempts (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id  text COLLATE "C" NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  at           bigint NOT NULL,
  status       integer,
  error        text,
  duration_ms  integer NOT NULL
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, id);

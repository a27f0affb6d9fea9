-- Settings every node must share. `secret` signs pagination tokens and cursors: a token issued by
-- one node must verify on every other, so when PRONET_SECRET is unset the first node generates one and
-- keeps it here (the embedded store keeps it in the data dir).
CREATE TABLE settings (
  name   text PRIMARY KEY,
  value  text NOT NULL
);

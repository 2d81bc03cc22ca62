-- Each usage flush writes its counts under an id of its own, recorded in the same transaction: a flush
-- whose commit went through but was never acknowledged (the connection lost during COMMIT, and the
-- outcome could not be read afterwards) is sent again with the same id and then skipped, so no request
-- is counted twice. Ids are kept as long as key_usage keeps minutes.
CREATE TABLE usage_batches (
  id          text PRIMARY KEY,
  written_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_batches_written_at ON usage_batches (written_at);

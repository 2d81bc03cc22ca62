-- Durable background jobs (imports, geocoding). A job is claimed with FOR UPDATE SKIP LOCKED and held
-- by a lease (`locked_until`) that its worker renews; a job whose lease ran out is claimed again.
CREATE TABLE jobs (
  id           text PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL DEFAULT '{}',
  -- at most one queued or running job per (kind, dedupe_key)
  dedupe_key   text,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'failed')),
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  run_at       timestamptz NOT NULL DEFAULT now(),
  locked_by    text,
  locked_until timestamptz,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_ready ON jobs (run_at, id) WHERE status IN ('queued', 'running');
CREATE UNIQUE INDEX jobs_dedupe ON jobs (kind, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');

CREATE TABLE imports (
  id             text PRIMARY KEY,
  team_id        text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  status         text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
  filename       text NOT NULL,
  columns        text[] NOT NULL,
  create_missing_attributes boolean NOT NULL DEFAULT false,
  total_rows     integer NOT NULL CHECK (total_rows >= 0),
  processed_rows integer NOT NULL DEFAULT 0,
  created        integer NOT NULL DEFAULT 0,
  failed         integer NOT NULL DEFAULT 0,
  limit_reached  boolean NOT NULL DEFAULT false,
  errors         jsonb NOT NULL DEFAULT '[]',
  -- checkpoint: index of the first data row not yet committed, and where it starts in the decoded
  -- text (string offset, line number; null = right after the header); a restarted job resumes there
  next_row       integer NOT NULL DEFAULT 0,
  next_offset    integer,
  next_line      integer,
  created_at     timestamptz NOT NULL DEFAULT now(),
  started_at     timestamptz,
  finished_at    timestamptz
);
CREATE INDEX imports_team ON imports (team_id, id);

-- The uploaded file, kept until its import finishes.
CREATE TABLE import_files (
  import_id text PRIMARY KEY REFERENCES imports(id) ON DELETE CASCADE,
  content   bytea NOT NULL
);

CREATE INDEX pois_import ON pois (import_id) WHERE import_id IS NOT NULL;

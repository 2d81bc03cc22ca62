-- Batch optimization jobs (POST /v1/optimizations): the resource a team sees, run by a durable job of
-- the `jobs` table. The body is stored with its locations resolved at submission (a POI deleted later
-- does not change the job), and the time frame fixed then (vehicles without hours leave at submission).
CREATE TABLE optimizations (
  id            text PRIMARY KEY,
  team_id       text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  body          jsonb NOT NULL,
  locations     jsonb NOT NULL,
  frame         jsonb NOT NULL,
  time_budget   integer NOT NULL CHECK (time_budget > 0),
  -- what it is doing and how far: {phase, percent}; phases matrix, solving, routes
  progress      jsonb NOT NULL DEFAULT '{"phase": "queued", "percent": 0}',
  -- the best plan so far and the search time spent on it: a restarted job continues from here
  checkpoint    jsonb,
  runs          integer NOT NULL DEFAULT 0,
  result        json,  -- json, not jsonb: the plan keeps the key order it was written in
  error         json,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz
);
CREATE INDEX optimizations_team ON optimizations (team_id, id);

-- A worker that dies is not a failure of what it was doing. `attempts` now counts only errors a job
-- raised itself; `crashes` counts the claims in a row whose worker was gone before the job made
-- progress (killed, out of memory, crashed). A job that keeps taking its process down is set aside
-- after a few (src/jobs/runner.ts) instead of being tried for ever.
ALTER TABLE jobs ADD COLUMN crashes integer NOT NULL DEFAULT 0;

-- The same for geocoding, per POI: who holds the claim (so that a restarted worker on the same host
-- takes a dead one's POIs back at once), the claims in a row that did not finish, and why a POI was
-- set aside. `geocode_attempts` now counts only failures of the geocoder on the POI.
ALTER TABLE pois
  ADD COLUMN geocode_claimed_by text,
  ADD COLUMN geocode_claims integer NOT NULL DEFAULT 0,
  ADD COLUMN geocode_error text;

-- POIs whose claim did not finish are claimed apart, in smaller batches (a POI that crashes the
-- geocoder must not take 499 others down with it every time).
CREATE INDEX pois_geocode_suspects ON pois (geocode_claims DESC, id) WHERE geocode_pending AND geocode_claims > 0;

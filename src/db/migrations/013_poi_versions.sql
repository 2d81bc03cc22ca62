-- A version per team that changes with every committed statement that adds, moves or removes the
-- team's POIs. Distance lists are answered from an in-process index of POI positions
-- (src/pois/nearby-index.ts) built at one version; each answer reads the version in the same
-- statement as its rows and is used only when the two agree, so the index is never stale.
-- The bump is an upsert of one row: it holds the row lock to the end of the transaction, so the
-- versions that commit strictly increase and never repeat.
-- No foreign key: a team's deletion cascades to its POIs, whose delete trigger must not fail on it.
CREATE TABLE poi_versions (
  team_id text PRIMARY KEY,
  version bigint NOT NULL
);

CREATE FUNCTION bump_poi_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO poi_versions AS v (team_id, version) SELECT DISTINCT team_id, 1 FROM old_pois
    ON CONFLICT (team_id) DO UPDATE SET version = v.version + 1;
  ELSE
    INSERT INTO poi_versions AS v (team_id, version) SELECT DISTINCT team_id, 1 FROM new_pois
    ON CONFLICT (team_id) DO UPDATE SET version = v.version + 1;
  END IF;
  RETURN NULL;
END $$;

-- Once per statement: an import batch of 500 rows bumps its team's version once.
CREATE TRIGGER pois_inserted AFTER INSERT ON pois REFERENCING NEW TABLE AS new_pois
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions();
CREATE TRIGGER pois_deleted AFTER DELETE ON pois REFERENCING OLD TABLE AS old_pois
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions();

-- Moves only: renames, attribute changes and geocoding leave the positions as they are.
CREATE FUNCTION bump_poi_version_on_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO poi_versions AS v (team_id, version) VALUES (NEW.team_id, 1)
  ON CONFLICT (team_id) DO UPDATE SET version = v.version + 1;
  IF OLD.team_id <> NEW.team_id THEN
    INSERT INTO poi_versions AS v (team_id, version) VALUES (OLD.team_id, 1)
    ON CONFLICT (team_id) DO UPDATE SET version = v.version + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER pois_moved AFTER UPDATE OF latitude, longitude, team_id ON pois FOR EACH ROW
  WHEN (OLD.latitude IS DISTINCT FROM NEW.latitude OR OLD.longitude IS DISTINCT FROM NEW.longitude
        OR OLD.team_id IS DISTINCT FROM NEW.team_id)
  EXECUTE FUNCTION bump_poi_version_on_move();

CREATE FUNCTION bump_all_poi_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE poi_versions SET version = version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER pois_truncated AFTER TRUNCATE ON pois FOR EACH STATEMENT EXECUTE FUNCTION bump_all_poi_versions();

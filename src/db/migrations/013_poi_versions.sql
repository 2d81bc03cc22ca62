-- Two counters per team that let each process keep POI data in memory and still answer exactly:
-- `version` changes with every committed statement that adds, moves or removes the team's POIs (the
-- distance index of positions, src/pois/nearby-index.ts, is built at one); `content` with every one
-- that changes what any of its POIs shows: its row, its category, the names of its attributes (the JSON
-- cache, src/pois/poi-reader.ts). An answer reads them in the same statement as its rows and uses what
-- it holds only when they are unchanged.
-- A bump is an upsert of the team's row: it holds the row lock to the end of the transaction, so the
-- counters that commit strictly increase and never repeat. A statement touching several teams takes
-- them in team order, so such statements cannot deadlock each other. Every writer of POIs takes the row
-- last (the triggers run at the end of their statement): a writer that locks the team or POI rows after
-- a bump deadlocks with one that takes them before (deletePoi locks the team first; deleting an
-- attribute updates its POIs before it deletes it).
-- No foreign key: a team's deletion cascades to its POIs, whose delete trigger must not fail on it.
-- Rows are never deleted: a counter that started again from 0 could meet a value a process holds from before.
CREATE TABLE poi_versions (
  team_id text PRIMARY KEY,
  version bigint NOT NULL DEFAULT 0,
  content bigint NOT NULL DEFAULT 0
);

-- Bumps the teams of a statement's rows (transition table `changed`; pois, categories and attributes
-- all have team_id): `content` always, `version` too when the trigger's argument says 'positions'.
CREATE FUNCTION bump_poi_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO poi_versions AS v (team_id, version, content)
  SELECT DISTINCT team_id, (TG_ARGV[0] = 'positions')::int, 1 FROM changed ORDER BY team_id
  ON CONFLICT (team_id) DO UPDATE SET version = v.version + excluded.version, content = v.content + 1;
  RETURN NULL;
END $$;

-- Once per statement that adds or removes POIs (an import batch of 500 rows: once).
CREATE TRIGGER pois_inserted AFTER INSERT ON pois REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions('positions');
CREATE TRIGGER pois_deleted AFTER DELETE ON pois REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions('positions');

-- Updates of POIs bump the teams of rows whose shown columns changed, `version` too for rows that moved:
-- claiming a geocoding batch (leases, attempts) costs no team its cache. The service never changes a
-- POI's team_id. (Triggers with transition tables take no column list.)
CREATE FUNCTION bump_poi_versions_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO poi_versions AS v (team_id, version, content)
  SELECT n.team_id, max(((n.latitude, n.longitude) IS DISTINCT FROM (o.latitude, o.longitude))::int), 1
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE (n.team_id, n.name, n.latitude, n.longitude, n.category_id, n.attrs, n.street, n.display_name,
         n.city_id, n.country_id, n.zipcode_id, n.geocoded_at, n.created_at, n.updated_at)
    IS DISTINCT FROM
        (o.team_id, o.name, o.latitude, o.longitude, o.category_id, o.attrs, o.street, o.display_name,
         o.city_id, o.country_id, o.zipcode_id, o.geocoded_at, o.created_at, o.updated_at)
  GROUP BY n.team_id ORDER BY n.team_id
  ON CONFLICT (team_id) DO UPDATE SET version = v.version + excluded.version, content = v.content + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER pois_updated AFTER UPDATE ON pois REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions_on_update();

-- A category's name and timestamps are in its POIs' JSON (a deleted one's POIs are updated by SET NULL).
CREATE TRIGGER categories_updated AFTER UPDATE ON categories REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions('content');
CREATE TRIGGER categories_deleted AFTER DELETE ON categories REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions('content');

-- Attribute names are the keys of POIs' `attributes`.
CREATE TRIGGER attributes_updated AFTER UPDATE ON attributes REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions('content');
CREATE TRIGGER attributes_deleted AFTER DELETE ON attributes REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION bump_poi_versions('content');

-- TRUNCATE has no rows to name teams by: every team's counters move.
CREATE FUNCTION bump_all_poi_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE poi_versions SET version = version + 1, content = content + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER pois_truncated AFTER TRUNCATE ON pois FOR EACH STATEMENT EXECUTE FUNCTION bump_all_poi_versions();

-- Usage stays when its key is deleted: the dashboard shows it as "deleted key", and the team's rolling
-- hour ("used" under the rate limit) does not drop while the limiter keeps counting it. The counts are
-- the team's (deleted with the team), no longer the key's.
ALTER TABLE key_usage ADD COLUMN team_id text REFERENCES teams(id) ON DELETE CASCADE;
UPDATE key_usage u SET team_id = k.team_id FROM api_keys k WHERE k.id = u.key_id;
ALTER TABLE key_usage ALTER COLUMN team_id SET NOT NULL;
ALTER TABLE key_usage DROP CONSTRAINT key_usage_key_id_fkey;
CREATE INDEX key_usage_team_minute ON key_usage (team_id, minute);

ALTER TABLE key_usage_daily ADD COLUMN team_id text REFERENCES teams(id) ON DELETE CASCADE;
UPDATE key_usage_daily u SET team_id = k.team_id FROM api_keys k WHERE k.id = u.key_id;
ALTER TABLE key_usage_daily ALTER COLUMN team_id SET NOT NULL;
ALTER TABLE key_usage_daily DROP CONSTRAINT key_usage_daily_key_id_fkey;
CREATE INDEX key_usage_daily_team_day ON key_usage_daily (team_id, day);

CREATE OR REPLACE FUNCTION key_usage_to_daily() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO key_usage_daily AS d (key_id, team_id, day, method, endpoint, status_class, count)
  VALUES (NEW.key_id, NEW.team_id, (NEW.minute AT TIME ZONE 'UTC')::date, NEW.method, NEW.endpoint, NEW.status_class,
          NEW.count - CASE WHEN TG_OP = 'UPDATE' THEN OLD.count ELSE 0 END)
  ON CONFLICT (key_id, day, method, endpoint, status_class) DO UPDATE SET count = d.count + excluded.count;
  RETURN NULL;
END $$;

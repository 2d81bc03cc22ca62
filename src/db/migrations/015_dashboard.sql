-- Dashboard users (one team each; e-mail unique across teams so sign-in needs no team name),
-- server-side sessions (only a digest of the cookie's token is stored), failed sign-ins for the
-- sign-in rate limit, and daily usage per key for the dashboard's 30-day chart.
CREATE TABLE dashboard_users (
  id                  text PRIMARY KEY,
  team_id             text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  email               text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
  password_hash       text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dashboard_users_email ON dashboard_users (lower(email));

CREATE TABLE dashboard_sessions (
  digest       bytea PRIMARY KEY,
  user_id      text NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  team_id      text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_seen ON dashboard_sessions (last_seen_at);

CREATE TABLE dashboard_sign_in_failures (
  email text NOT NULL,
  at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_sign_in_failures_email ON dashboard_sign_in_failures (email, at);

-- Usage by status class (2 = 2xx … 5 = 5xx; 0 = not known yet, or recorded before this migration): the
-- recorder counts a request when it is admitted and moves it to its class once the reply is known.
ALTER TABLE key_usage ADD COLUMN status_class smallint NOT NULL DEFAULT 0;
ALTER TABLE key_usage DROP CONSTRAINT key_usage_pkey;
ALTER TABLE key_usage ADD PRIMARY KEY (key_id, minute, method, endpoint, status_class);

-- key_usage keeps 24 hours of minutes; this keeps days (the usage recorder's upserts feed it).
CREATE TABLE key_usage_daily (
  key_id       text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  day          date NOT NULL,
  method       text NOT NULL,
  endpoint     text NOT NULL,
  status_class smallint NOT NULL,
  count        integer NOT NULL,
  PRIMARY KEY (key_id, day, method, endpoint, status_class)
);

CREATE FUNCTION key_usage_to_daily() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO key_usage_daily AS d (key_id, day, method, endpoint, status_class, count)
  VALUES (NEW.key_id, (NEW.minute AT TIME ZONE 'UTC')::date, NEW.method, NEW.endpoint, NEW.status_class,
          NEW.count - CASE WHEN TG_OP = 'UPDATE' THEN OLD.count ELSE 0 END)
  ON CONFLICT (key_id, day, method, endpoint, status_class) DO UPDATE SET count = d.count + excluded.count;
  RETURN NULL;
END $$;

CREATE TRIGGER key_usage_daily_feed AFTER INSERT OR UPDATE OF count ON key_usage
  FOR EACH ROW EXECUTE FUNCTION key_usage_to_daily();

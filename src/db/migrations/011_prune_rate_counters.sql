-- rate_take also drops the team's minutes that left the rolling hour, so rate_counters holds at most
-- about 61 rows per team instead of growing by one row per active minute for ever. Same body as in
-- 002_rate_limit.sql otherwise.
CREATE OR REPLACE FUNCTION rate_take(p_team text, p_want integer, p_limit integer)
RETURNS TABLE (granted integer, used integer, oldest timestamptz, minute timestamptz)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  m timestamptz := date_trunc('minute', clock_timestamp());
  u integer;
  o timestamptz;
  g integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('rate:' || p_team));
  DELETE FROM rate_counters c WHERE c.team_id = p_team AND c.minute <= m - interval '60 minutes';
  SELECT coalesce(sum(c.count), 0), min(c.minute) INTO u, o
    FROM rate_counters c WHERE c.team_id = p_team AND c.minute > m - interval '60 minutes' AND c.count > 0;
  g := least(p_want, greatest(p_limit - u, 0));
  IF g > 0 THEN
    INSERT INTO rate_counters AS r (team_id, minute, count) VALUES (p_team, m, g)
      ON CONFLICT (team_id, minute) DO UPDATE SET count = r.count + g;
    u := u + g;
    o := coalesce(o, m);
  END IF;
  RETURN QUERY SELECT g, u, o, m;
END $$;

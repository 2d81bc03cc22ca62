-- Failed dashboard sign-ins are bounded per client address too, not only per e-mail: one password tried
-- across many accounts from one address is slowed down as well.
ALTER TABLE dashboard_sign_in_failures ADD COLUMN client text;
CREATE INDEX dashboard_sign_in_failures_client ON dashboard_sign_in_failures (client, at);

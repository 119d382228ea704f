-- Must stay the definition in migrations/home/V2__cost.sql.
CREATE INDEX IF NOT EXISTS usage_ts ON usage (ts)

-- Must stay the definition in migrations/home/V2__cost.sql.
CREATE UNIQUE INDEX IF NOT EXISTS usage_dedup ON usage (dedup_key)

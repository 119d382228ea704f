-- Moves the spool cursor forward (never back: hooks advance it concurrently).
INSERT INTO tlc_meta (key, value) VALUES ('spool.through', ?1)
ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))

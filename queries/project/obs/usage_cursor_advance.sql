-- Moves the usage cursor forward (never back: hooks advance it concurrently).
INSERT INTO tlc_meta (key, value) VALUES ('usage.through', ?1)
ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))

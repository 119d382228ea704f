-- Sets one fact of `tlc_meta`.
INSERT INTO tlc_meta (key, value) VALUES (?1, ?2)
ON CONFLICT (key) DO UPDATE SET value = excluded.value

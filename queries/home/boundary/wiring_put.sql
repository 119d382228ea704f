-- Records one value tlc added to a client's settings file (a key, or an item of a list).
INSERT INTO client_wiring (provider, file, pointer, item, previous, written, container, added_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
ON CONFLICT (provider, file, pointer, item) DO UPDATE SET written = excluded.written, added_at = excluded.added_at

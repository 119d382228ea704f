-- What tlc added to one client's settings file (?1 provider, ?2 file), in the order it was added.
SELECT pointer, item, previous, written, container FROM client_wiring
WHERE provider = ?1 AND file = ?2 ORDER BY added_at, pointer, item

-- After a prune: a cursor of stream ?1 past ?2, the highest id its table kept, is pulled back to
-- it, since SQLite numbers the next row from that highest id and those rows must not be taken as
-- already sent.
UPDATE ship_cursor SET last_id = ?2
WHERE stream = ?1 AND last_id > ?2

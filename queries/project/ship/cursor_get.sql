-- The last acknowledged row id of one stream at one collector (0 when nothing was sent yet).
SELECT last_id FROM ship_cursor WHERE target = ?1 AND stream = ?2

-- The 1-hour part of a generation's cache writes (issue 16): `cache_write_tokens` stays every write,
-- this column the part written with the 1-hour TTL (billed at 2x the input rate, not 1.25x). Events
-- recorded before it have NULL: their writes count as 5-minute.
ALTER TABLE events ADD COLUMN cache_write_1h_tokens INTEGER;

-- A response's dedup key is checked through an index on its last 16 characters instead of a unique
-- index on the whole key. The whole-key index was a quarter of the home database (67 MB of 269 MB
-- for 900,000 imported responses) and the costliest part of importing them; the tail index is a
-- third of its size. Every insert now checks the whole key itself, against the rows that share its
-- tail (queries/home/cost/usage_insert.sql, queries/home/spool/usage_insert.sql; the bulk import
-- checks against the keys it has read), so a key is still stored once. The tail is used rather than
-- the head because keys of one kind share their first characters (`msg_01…`, a file's path).
DROP INDEX IF EXISTS usage_dedup;
CREATE INDEX usage_key_tail ON usage (substr(dedup_key, -16));

-- `usage_ts` is dropped: no query or view reads `usage` by time (the cost reports read the rollups,
-- prune deletes from the spool only), and keeping it cost every transcript import a second index
-- maintained row by row, or rebuilt by sorting — 30 MB per 900,000 responses.
DROP INDEX IF EXISTS usage_ts;

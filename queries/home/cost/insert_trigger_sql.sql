-- The per-row insert triggers on `usage` that a bulk import sets aside (it adds the rollup sums and
-- the key rows itself), with their text, to restore them exactly.
SELECT name, sql FROM sqlite_master
WHERE type = 'trigger' AND tbl_name = 'usage' AND name IN ('usage_rollup_insert', 'usage_key_insert')
ORDER BY name

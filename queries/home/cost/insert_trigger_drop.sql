-- Dropped for the length of a bulk import's one transaction (see cost::usage::without_insert_trigger).
DROP TRIGGER usage_rollup_insert

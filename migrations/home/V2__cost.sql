-- Bulk transcript imports: the per-row insert trigger on `usage` cost about 40% of an import's time
-- (measured: 900,000 responses, 9.6 s of inserts without it, 14-17 s with it). Writers of `usage` now
-- add their rows' sums to `usage_rollup` themselves, in the same transaction, through
-- `cost::usage::UsageWriter` (queries/home/cost/rollup_add.sql). The delete trigger stays: deletes
-- (retention) are rare and must keep the rollup right whoever runs them.
DROP TRIGGER IF EXISTS usage_rollup_insert;

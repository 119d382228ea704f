-- The text of the per-row rollup trigger on `usage`, to restore it exactly after a bulk import.
SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'usage_rollup_insert'

DELETE FROM usage_rollup

DELETE FROM spool_rollup

DELETE FROM spool WHERE ts < ?1

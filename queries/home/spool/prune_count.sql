SELECT count(*) FROM spool WHERE ts < ?1

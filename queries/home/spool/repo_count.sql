-- For doctor: spool rows of one repository.
SELECT count(*) FROM spool WHERE repo_path = ?1

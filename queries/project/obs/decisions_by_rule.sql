-- How many decisions of rule ?3 a session (?1 provider, ?2 session) recorded (observation mode:
-- whether tlc's own follow-up already told the session the rule).
SELECT count(*) FROM decisions WHERE session_id = ?2 AND provider = ?1 AND rule = ?3

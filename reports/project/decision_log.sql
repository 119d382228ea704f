-- Every decision the hooks made, newest last, with the rule that decided it.
CREATE VIEW decision_log AS
SELECT id, ts, provider, session_id, subject, permission, posture, rule, reason, detail
FROM decisions;

-- One stop outcome and the rule that decided it.
INSERT INTO stop_outcomes (ts, provider, session_id, turn, attempt, outcome, rule, fingerprint, detail)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)

-- One stop outcome, the rule that decided it, and the text the stop sent the agent (?10).
INSERT INTO stop_outcomes (ts, provider, session_id, turn, attempt, outcome, rule, fingerprint, detail, follow_up)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)

-- A session's stop outcomes (?1 provider, ?2 session), newest first, at most ?3.
SELECT ts, turn, attempt, outcome, rule, fingerprint, detail
FROM stop_outcomes WHERE provider = ?1 AND session_id = ?2 ORDER BY id DESC LIMIT ?3

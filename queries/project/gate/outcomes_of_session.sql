-- A session's last ?3 stop outcomes (?1 provider, ?2 session), oldest first, each with the text the
-- stop sent the agent: `tlc serve`'s session timeline.
SELECT id, ts, turn, attempt, outcome, rule, fingerprint, detail, follow_up FROM (
    SELECT * FROM stop_outcomes WHERE provider = ?1 AND session_id = ?2 ORDER BY id DESC LIMIT ?3
)
ORDER BY id

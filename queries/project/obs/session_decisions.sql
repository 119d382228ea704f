-- One session's last ?3 decisions of the hooks (?1 session, ?2 provider), oldest first, with the
-- event each answered: `tlc serve`'s session timeline puts each beside its tool call.
SELECT id, event_id, ts, subject, permission, posture, rule, reason, detail FROM (
    SELECT * FROM decisions WHERE session_id = ?1 AND +provider = ?2 ORDER BY id DESC LIMIT ?3
)
ORDER BY id

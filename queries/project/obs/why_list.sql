-- The last ?1 decisions of the hooks and outcomes of the stops (of session ?2, or every session),
-- oldest first: what governed. A stop's row has subject `stop`, its outcome as the decision (block,
-- allow, advisory, capped, paused, deferred), no posture, and its detail as the reason.
SELECT id, ts, provider, session_id, subject, permission, posture, rule, reason, detail, kind FROM (
    SELECT id, ts, provider, session_id, subject, permission, posture, rule, reason, detail, 'decision' AS kind
    FROM decision_log WHERE (?2 IS NULL OR session_id = ?2)
    UNION ALL
    SELECT id, ts, provider, session_id, 'stop', outcome, NULL, rule, detail, NULL, 'stop'
    FROM stop_outcomes WHERE (?2 IS NULL OR session_id = ?2)
    ORDER BY ts DESC, kind DESC, id DESC LIMIT ?1
)
ORDER BY ts, kind, id

-- One session's last ?4 events of one plane (?1 session, ?2 provider, ?3 plane), oldest first, in the
-- shape of events_list.sql. `+plane` and `+provider` keep SQLite on the session's index (a few
-- thousand rows) rather than walking every event of the plane.
SELECT id, ts, provider, kind, plane, session_id, tool, duration_ms, model, attrs,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd
FROM (
    SELECT * FROM events
    WHERE session_id = ?1 AND +provider = ?2 AND +plane = ?3
    ORDER BY id DESC
    LIMIT ?4
)
ORDER BY id

-- One session's last ?3 events on every plane but the model's API calls (?1 session, ?2 provider),
-- oldest first, in the shape of events_list.sql: the prompts, tool calls, stops and the rest that
-- `tlc serve`'s session timeline tells (the calls' tokens and cost are the page's totals).
SELECT id, ts, provider, kind, plane, session_id, tool, duration_ms, model, attrs,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd
FROM (
    SELECT * FROM events
    WHERE session_id = ?1 AND +provider = ?2 AND kind <> 'generation.end'
    ORDER BY id DESC
    LIMIT ?3
)
ORDER BY id

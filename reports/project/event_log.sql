-- Every event with its plane, for export: attributes as JSON text, no audit payload.
CREATE VIEW event_log AS
SELECT id, ts, provider, kind, plane, session_id, trace_id, span_id, parent_span_id, model, tool, phase,
       duration_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, cost_source, attrs,
       cache_write_1h_tokens
FROM events;

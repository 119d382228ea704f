INSERT INTO events (ts, provider, kind, plane, session_id, trace_id, span_id, parent_span_id, model, tool, phase,
                    attrs, payload, duration_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
                    cost_usd, cost_source, cost_pool, dedup_key, cache_write_1h_tokens)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)
ON CONFLICT (dedup_key) DO NOTHING

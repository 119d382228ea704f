SELECT session_id, provider, started_at, updated_at, ended_at, models, prompts, responses, thoughts, compactions, generations,
       denials, shell_allow, shell_ask, shell_deny, gates_pass, gates_fail, gate_runs, gate_reused, gate_total_ms,
       gate_worst_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, estimated_cost_usd,
       cost_incomplete, cost_alert_sent, gates_deferred, context_tokens
FROM session_rollup
WHERE session_id = ?1 AND provider = ?2

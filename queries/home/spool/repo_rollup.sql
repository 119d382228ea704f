SELECT repo_path, project, sessions, events, prompts, tool_fails, coalesce(denials, 0), input_tokens, output_tokens, cost_usd, last_at
FROM spool_repo_rollup
ORDER BY last_at DESC

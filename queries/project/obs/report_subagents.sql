SELECT subagent_type, started, ended, tool_calls FROM subagent_stats WHERE session_id = ?1 AND provider = ?2 ORDER BY subagent_type

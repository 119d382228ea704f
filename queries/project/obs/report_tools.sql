SELECT tool, calls, ok, fail, total_ms, denied, asked FROM tool_stats WHERE session_id = ?1 AND provider = ?2 ORDER BY calls DESC, tool

-- The tool, shell, MCP, file and subagent events a session recorded at or after ?3 (the idle turn gate).
SELECT count(*) FROM events
WHERE session_id = ?2 AND provider = ?1 AND ts >= ?3
  AND (kind LIKE 'shell.%' OR kind LIKE 'mcp.%' OR kind LIKE 'tool.%' OR kind LIKE 'file.%' OR kind LIKE 'subagent.%')

-- The latest event of one thread of a session (?3: the subagent, as the events' parent span;
-- NULL: the main thread) that shows a response or ends one — a response block, a tool call's start,
-- a stop, a prompt, a session start — among the last 256 rows (a walk back over the newest rows,
-- not the session index: the event before this one is almost always among them), with its turn.
-- A subagent running in the background (Claude Code 2.1.332) interleaves its events with the main
-- thread's, some without its id (PostToolBatch): only the kinds that end a response count.
SELECT kind, json_extract(attrs, '$.turn_id')
FROM events
WHERE id > (SELECT coalesce(max(id), 0) - 256 FROM events)
  AND +session_id = ?1 AND provider = ?2 AND parent_span_id IS ?3
  AND kind IN ('agent.response', 'shell.start', 'mcp.start', 'file.read', 'tool.start', 'stop', 'stop.failure',
               'prompt.submit', 'session.start')
ORDER BY id DESC
LIMIT 1

-- The `decisions` log stream: every permission a hook answered, after row ?1, oldest first, at
-- most ?2 (columns as in events_after.sql). Its span is the tool call it decided on.
SELECT d.id, d.ts, d.provider, d.session_id, e.span_id, 'decision', d.rule, d.permission,
       CASE d.permission WHEN 'deny' THEN 'WARN' ELSE 'INFO' END,
       json_object(
           'tlc.decision.subject', d.subject,
           'tlc.decision.posture', d.posture,
           'gen_ai.tool.name', e.tool),
       json_object('tlc.decision.reason', d.reason, 'tlc.decision.detail', d.detail)
FROM decisions d
LEFT JOIN events e ON e.id = d.event_id
WHERE d.id > ?1
ORDER BY d.id
LIMIT ?2

-- The `floor_denials` log stream: every denial by a floor rule (the `floor_denials` view, which
-- keeps the floor's rule list), after row ?1 of `decisions`, oldest first, at most ?2 (columns as
-- in events_after.sql). Each is a `decision` record too; this kind counts the floor apart from
-- the interruption rate. Its command, path or tool and its reason are payload texts.
SELECT f.id, f.ts, f.provider, f.session_id, e.span_id, 'floor_denial', f.rule, 'deny', 'WARN',
       json_object(
           'tlc.decision.subject', f.subject,
           'tlc.decision.posture', f.posture,
           'gen_ai.tool.name', e.tool),
       json_object('tlc.decision.reason', f.reason, 'tlc.decision.detail', f.detail)
FROM floor_denials f
JOIN decisions d ON d.id = f.id
LEFT JOIN events e ON e.id = d.event_id
WHERE f.id > ?1
ORDER BY f.id
LIMIT ?2

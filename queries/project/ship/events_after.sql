-- The `events` log stream: signal-plane events other than model responses (those are spans),
-- after row ?1, oldest first, at most ?2. Every log stream returns these columns:
-- id, ts, provider, session_id, span_id, kind, rule, verdict, severity (INFO, WARN or ERROR),
-- attrs (a JSON object: attribute name -> value, always sent) and payload (a JSON object of the
-- same form holding payload texts, sent only with ship.includePayloads).
SELECT id, ts, provider, session_id, span_id, kind, NULL, NULL,
       CASE WHEN kind IN ('hook.fault') THEN 'ERROR'
            WHEN kind IN ('tool.fail', 'cost.session_alert') THEN 'WARN'
            ELSE 'INFO' END,
       json_object(
           'tlc.event.kind', kind,
           'tlc.provider.event', json_extract(attrs, '$.event'),
           'gen_ai.request.model', model,
           'gen_ai.tool.name', tool,
           'tlc.duration_ms', duration_ms,
           'tlc.event.source', json_extract(attrs, '$.source'),
           'tlc.event.trigger', json_extract(attrs, '$.trigger'),
           'tlc.event.notification_type', json_extract(attrs, '$.notification_type'),
           'tlc.event.agent_type', coalesce(json_extract(attrs, '$.agent_type'), json_extract(attrs, '$.subagent_type')),
           'tlc.event.permission_mode', json_extract(attrs, '$.permission_mode'),
           'tlc.event.context_usage_percent', json_extract(attrs, '$.context_usage_percent'),
           'tlc.cost_alert.estimated_cost_usd', json_extract(attrs, '$.estimated_cost_usd'),
           'tlc.cost_alert.threshold_usd', json_extract(attrs, '$.threshold_usd')),
       json_object('tlc.event.attrs', attrs)
FROM events
WHERE id > ?1 AND plane = 'signal' AND kind <> 'generation.end'
ORDER BY id
LIMIT ?2

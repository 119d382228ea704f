-- Per session and tool: calls, successful ends, failures and the time between start and end, and
-- how many calls a rail denied or asked about (the decision the hook recorded on the call's start).
CREATE VIEW tool_stats AS
SELECT
    session_id,
    provider,
    tool,
    -- Starts; where fewer starts than ends and failures were recorded (harness-toolkit records no
    -- start of an allowed call), the ends and failures.
    CAST(max(sum(phase = 'start'), sum(phase IN ('end', 'fail'))) AS INTEGER) AS calls,
    CAST(sum(phase = 'end') AS INTEGER) AS ok,
    CAST(sum(phase = 'fail') AS INTEGER) AS fail,
    CAST(total(duration_ms) AS INTEGER) AS total_ms,
    CAST(max(duration_ms) AS INTEGER) AS worst_ms,
    CAST(min(ts) AS TEXT) AS first_at,
    CAST(max(ts) AS TEXT) AS last_at,
    CAST(sum(phase = 'start' AND json_extract(attrs, '$.decision') = 'deny') AS INTEGER) AS denied,
    CAST(sum(phase = 'start' AND json_extract(attrs, '$.decision') = 'ask') AS INTEGER) AS asked
FROM events
WHERE tool IS NOT NULL AND phase IS NOT NULL
GROUP BY session_id, provider, tool;

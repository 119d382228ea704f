-- Observation mode's readings (issue 33, `observe.rails`): per rail and reading, how many turns
-- were read so and in how many sessions. Read from the `observe.reading` events.
CREATE VIEW observation_readings AS
SELECT
    CAST(json_extract(attrs, '$.rail') AS TEXT) AS rail,
    CAST(json_extract(attrs, '$.reading') AS TEXT) AS reading,
    CAST(count(*) AS INTEGER) AS count,
    CAST(count(DISTINCT session_id) AS INTEGER) AS sessions
FROM events
WHERE kind = 'observe.reading'
GROUP BY 1, 2;

-- Whether injected lessons helped: each retry injection (a blocked stop's LESSONS block) is graded
-- by the session's next run of that gate after the failing one (a pass: helped, else neutral);
-- a session-start injection is not graded. A project lesson never injected shows `not-injected`.
CREATE VIEW lesson_effectiveness AS
SELECT CAST(lesson_id AS TEXT) AS lesson_id,
       CAST(injected AS INTEGER) AS injected,
       CAST(graded AS INTEGER) AS graded,
       CAST(helped AS INTEGER) AS helped,
       CAST(graded - helped AS INTEGER) AS neutral,
       CAST(CASE
           WHEN injected = 0 THEN 'not-injected'
           WHEN retries = 0 THEN 'session-only'
           WHEN graded = 0 THEN 'unproven'
           WHEN helped > graded - helped THEN 'helped'
           ELSE 'neutral'
       END AS TEXT) AS verdict
FROM (
    SELECT lesson_id, count(*) AS injected, total(mode = 'retry') AS retries,
           total(next_verdict IS NOT NULL) AS graded, total(next_verdict = 'pass') AS helped
    FROM (
        SELECT i.lesson_id, i.mode,
               (SELECT r.verdict FROM gate_runs r
                WHERE i.mode = 'retry' AND r.session_id = i.session_id AND r.gate = i.gate
                  AND r.id > i.after_run AND r.verdict <> 'skipped'
                ORDER BY r.id LIMIT 1) AS next_verdict
        FROM lesson_injections i
    )
    GROUP BY lesson_id
    UNION ALL
    SELECT id, 0, 0, 0, 0 FROM lessons WHERE id NOT IN (SELECT lesson_id FROM lesson_injections)
);

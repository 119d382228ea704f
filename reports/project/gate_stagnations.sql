-- Every stagnation: a stop blocked by a gate whose failure fingerprint equals the one of the
-- previous block in the same turn (the follow-up says `[stagnation]`: the change made since did
-- not alter the result).
CREATE VIEW gate_stagnations AS
SELECT id, ts, provider, session_id, turn, attempt, rule, fingerprint, CAST(previous_attempt AS INTEGER) AS repeats_attempt
FROM (
    SELECT id, ts, provider, session_id, turn, attempt, rule, fingerprint,
           lag(fingerprint) OVER turn_blocks AS previous_fingerprint,
           lag(attempt) OVER turn_blocks AS previous_attempt
    FROM stop_outcomes
    WHERE outcome = 'block'
    WINDOW turn_blocks AS (PARTITION BY provider, session_id, turn ORDER BY id)
)
WHERE fingerprint IS NOT NULL AND fingerprint = previous_fingerprint;

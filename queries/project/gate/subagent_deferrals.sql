-- A session's (?1 provider, ?2 session) stops deferred by rule ?4 (running subagents) since the
-- checks last ran and let one of its stops through, and how many of those were in turn ?3. A
-- block, a cap or a lock deferral starts nothing over: only a tree the checks passed owes no
-- judgement. No index serves it (see `stop_outcomes`): it runs only at a stop that lists a running
-- subagent.
SELECT count(*), coalesce(sum(turn IS ?3), 0)
FROM stop_outcomes
WHERE provider = ?1 AND session_id = ?2 AND rule = ?4
  AND id > (SELECT coalesce(max(id), 0) FROM stop_outcomes
            WHERE provider = ?1 AND session_id = ?2
              AND ((outcome = 'allow' AND rule = 'passed') OR outcome = 'advisory'))

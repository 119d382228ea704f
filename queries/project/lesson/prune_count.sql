-- How many injections and garden-log rows `tlc obs prune` would drop before ?1.
SELECT (SELECT count(*) FROM lesson_injections WHERE at < ?1),
       (SELECT count(*) FROM lesson_garden_log WHERE at < ?1)

-- Every event by kind and plane, in the order the kinds first appeared.
SELECT kind, plane, count(*), sum(duration_ms) FROM events GROUP BY kind, plane ORDER BY min(id)

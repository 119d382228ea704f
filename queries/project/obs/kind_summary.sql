-- Every event by kind and plane, in the order the kinds first appeared.
SELECT kind, plane, count(*), CAST(total(duration_ms) AS INTEGER) FROM events GROUP BY kind, plane ORDER BY min(id)

SELECT kind, plane, count(*), sum(duration_ms) FROM events GROUP BY kind, plane ORDER BY min(id)

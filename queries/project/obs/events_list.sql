SELECT id, ts, provider, kind, plane, session_id, tool, duration_ms, model, attrs,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd
FROM (
    SELECT * FROM events
    WHERE (?1 IS NULL OR kind = ?1 OR kind LIKE ?1 || '.%')
      AND (?2 IS NULL OR session_id = ?2)
      AND (?3 IS NULL OR plane = ?3)
    ORDER BY id DESC
    LIMIT ?4
)
ORDER BY id

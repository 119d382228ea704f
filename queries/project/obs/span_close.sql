DELETE FROM open_spans WHERE provider = ?1 AND session_id = ?2 AND pair_key = ?3 AND span_id = ?4

DELETE FROM open_spans WHERE provider = ?1 AND session_id = ?2

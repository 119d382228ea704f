-- A session's turn row goes once nothing touched it within the retention window.
DELETE FROM turns WHERE updated_at < ?1

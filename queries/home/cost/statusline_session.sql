-- `tlc statusline`: one session's cost (NULL when nothing of it was priced); ?1 session id.
SELECT sum(cost_usd) FROM cost_rows WHERE session_id = ?1

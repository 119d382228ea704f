-- A session's untrusted-content row: whether this turn was framed, the content kept and its sources.
SELECT framed, content, sources FROM untrusted_content WHERE provider = ?1 AND session_id = ?2

-- Issue 36: `tlc obs cost` and every cost page of `tlc serve` count the responses whose output tokens
-- are inexact (queries/home/cost/inexact_output.sql). `usage` has no index by time (V5), so that count
-- read all of it: about a second per report on 900,000 responses, five times on the overview page.
-- `usage_inexact` holds only the responses whose `cost_source` carries `+inexact-output` (a subagent's
-- line written before its response ended: usually none, a few per subagent session at most), by time
-- and project, so the count reads those rows of the window and nothing else. The query repeats the
-- index's WHERE term word for word, which is what lets SQLite use a partial index.
CREATE INDEX usage_inexact ON usage (ts, project) WHERE instr(cost_source, '+inexact-output') > 0;

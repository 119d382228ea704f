-- Bulk transcript imports: the per-row rollup trigger on `usage` cost about 40% of an import's time
-- (measured: 900,000 responses, 9.6 s of inserts without it, 14-17 s with it). Rows of source
-- 'transcript' are now added to `usage_rollup` by their writer (`cost::usage::UsageWriter`, in the
-- same transaction, queries/home/cost/rollup_add.sql); every other source (the hook's 'spool' rows,
-- one at a time) keeps the trigger. The delete trigger is unchanged.
DROP TRIGGER IF EXISTS usage_rollup_insert;

CREATE TRIGGER usage_rollup_insert AFTER INSERT ON usage
WHEN NEW.source <> 'transcript'
BEGIN
    INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
    VALUES (substr(NEW.ts, 1, 10), NEW.project, NEW.session_id, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, coalesce(NEW.cost_usd, 0.0))
    ON CONFLICT (day, project, session_id, model) DO UPDATE SET
        responses          = responses + 1,
        priced             = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens       = input_tokens + NEW.input_tokens,
        output_tokens      = output_tokens + NEW.output_tokens,
        cache_read_tokens  = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens = cache_write_tokens + NEW.cache_write_tokens,
        cost_usd           = cost_usd + coalesce(NEW.cost_usd, 0.0);
END;

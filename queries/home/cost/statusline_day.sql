-- `tlc statusline`: one UTC day's cost over every project (NULL when nothing was priced); ?1 the day.
SELECT sum(cost_usd) FROM cost_daily_rows WHERE day = ?1

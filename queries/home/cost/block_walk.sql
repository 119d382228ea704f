-- `tlc obs cost --by block`, the overview page and `tlc statusline`: one step of the walk over the
-- 5-hour blocks' starts (cost::report, `CostReports::walk_to`). A block that starts at hour S takes
-- every response up to S + 5 hours inclusive, so the next block starts at the first response after
-- that: in `usage_hourly`, the rest of hour ?1 (S + 5 hours, as the number its digits spell: the
-- responses stamped exactly on it, at_hour = 1, are the old block's), else the first numbered hour
-- after it. ?2 project (NULL = no filter). Each is a seek on the primary key, so the walk costs one
-- step per block however many responses a block holds. `hour < ''` keeps to the numbered hours
-- (SQLite orders every number before every text); the walk is used only when there are no others.
SELECT coalesce(
    (SELECT h.hour FROM usage_hourly AS h
     WHERE h.hour = ?1 AND h.at_hour = 0
       AND (?2 IS NULL OR h.project_id = (SELECT id FROM usage_names WHERE name = ?2))
     LIMIT 1),
    (SELECT min(h.hour) FROM usage_hourly AS h
     WHERE h.hour > ?1 AND h.hour < ''
       AND (?2 IS NULL OR h.project_id = (SELECT id FROM usage_names WHERE name = ?2))))

-- Every collector's state, for `tlc obs ship --status`.
SELECT target, last_success_at, last_success_records, last_error_at, last_error, last_partial_at, last_partial, rejected_total
FROM ship_target ORDER BY target

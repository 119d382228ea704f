DELETE FROM stop_outcomes WHERE ts < ?1

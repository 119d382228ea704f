DELETE FROM ship_ledger WHERE ts < ?1

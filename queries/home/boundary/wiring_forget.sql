-- Forgets what tlc added to one client's settings file (?1 provider, ?2 file), once taken back.
DELETE FROM client_wiring WHERE provider = ?1 AND file = ?2

-- Issue 51 (fail closed): the gate lock's holder is the process with this pid *and* this start
-- time on its host (`/proc/<pid>/stat`'s start time, in clock ticks since boot). A row whose
-- process is not alive as recorded — gone, or its pid reused by another process — is reclaimed;
-- a forged row naming pid 1 no longer defers every gate. NULL in rows older than this migration:
-- every tlc since records the start time wherever `/proc` gives one, so a row without it, for a
-- process whose start time can be read, is reclaimed (where none can be read, the pid alone).
ALTER TABLE gate_lock ADD COLUMN pid_start INTEGER;

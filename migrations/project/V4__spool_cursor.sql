-- Hostile input and faults (issue 14).
--
-- The spool cursor: every event row up to this id is known to be in the home database's spool.
-- A hook (or `tlc obs spool catch-up`, or an import) sends the rows past it and moves it only
-- after the home database committed them, so a hook killed in between leaves them for the next
-- one. It starts at the rows already here: those were spooled, or not, by the tlc before.
INSERT OR REPLACE INTO tlc_meta (key, value) VALUES ('spool.through', (SELECT coalesce(max(id), 0) FROM events));

-- Transcript lines longer than one hook's read (read whole, or skipped when longer still).
ALTER TABLE transcripts ADD COLUMN oversize_lines INTEGER NOT NULL DEFAULT 0;

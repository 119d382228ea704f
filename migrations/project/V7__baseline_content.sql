-- Issue 29: a session runs on the policy it was baselined with while a source diverges, so the
-- baseline keeps the source's bytes, not only their hash (NULL for a source that was absent, and
-- for baselines recorded before this migration).
ALTER TABLE policy_baselines ADD COLUMN content BLOB;

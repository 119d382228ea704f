-- Whether `usage_hourly` holds an hour kept as text (a response time not of the stored form, which
-- neither tlc nor Claude Code writes; see migrations/home/V8__usage_hourly_numbered.sql). The block
-- walk (block_walk.sql) steps over numbered hours only; with such a row the blocks are chained over
-- the hourly rows themselves. SQLite orders every number before every text: a seek.
SELECT EXISTS (SELECT 1 FROM usage_hourly WHERE hour >= '')

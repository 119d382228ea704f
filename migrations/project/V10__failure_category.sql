-- Issue 33, item 4 (`intelligence.failureClassification`): the category of the failure a turn's
-- last stop left open (`verification`, `config`, `timeout`, `stagnation`, `ship-evidence`,
-- `comments`, `duplication`, `supply-chain`, `idle-turn`); NULL when it passed, or when the switch
-- was off.
ALTER TABLE turns ADD COLUMN last_category TEXT;

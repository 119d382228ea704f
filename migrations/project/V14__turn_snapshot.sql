-- Issue 52 (changed means changed by this turn): a turn's base is the tree at its start, not HEAD.
-- `base_wall_ms` is the turn's start on the machine's real clock (milliseconds since the epoch,
-- never `TLC_NOW`): a file dirty at the turn's start counts as the turn's change only if it was
-- changed again after it (its ctime, which no process can set back). `deleted_seen` is the JSON
-- list of the files the turn's latest stop found deleted: at the next turn's stop, a file still
-- deleted that was already deleted then is not that turn's change.
ALTER TABLE turns ADD COLUMN base_wall_ms INTEGER;
ALTER TABLE turns ADD COLUMN deleted_seen TEXT NOT NULL DEFAULT '[]';

-- Issue 52 (the story of a stop): the text a stop sent the agent — a block's follow-up, or the
-- advice a stop let through carried — kept with its outcome, for `tlc serve`'s session timeline.
ALTER TABLE stop_outcomes ADD COLUMN follow_up TEXT;

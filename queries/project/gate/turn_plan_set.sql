-- The plan and deviations of a session as the plan gate read them (?3 plan JSON or NULL, ?4 when it
-- was declared, ?5 paths named before the cap, ?6 deviations JSON, ?7 now).
UPDATE turns SET plan = ?3, plan_at = ?4, plan_named = ?5, deviations = ?6, updated_at = ?7
WHERE provider = ?1 AND session_id = ?2

-- A session's plan: the declared paths, when, how many were named before the cap, and the deviations.
SELECT plan, plan_at, plan_named, deviations FROM turns WHERE provider = ?1 AND session_id = ?2

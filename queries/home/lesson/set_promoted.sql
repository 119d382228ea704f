-- The operator's promotion of a global lesson an agent wrote (`tlc lessons promote`): from now on
-- it is given to every repository. Changes nothing for a lesson already promoted.
UPDATE lessons SET promoted_at = ?2, updated_at = ?2 WHERE id = ?1 AND promoted_at IS NULL

-- The last ?1 decisions that denied or asked, newest first, with what each was about (`detail`: the
-- command or the file) and whether it was the floor's (a row of the `floor_denials` view, kept out
-- of the interruption rate): `tlc serve`'s Policy page.
SELECT d.id, d.ts, d.provider, d.session_id, d.subject, d.permission, d.posture, d.rule, d.reason, d.detail,
       CAST(EXISTS (SELECT 1 FROM floor_denials f WHERE f.id = d.id) AS INTEGER) AS floor
FROM decisions d
WHERE d.permission <> 'allow'
ORDER BY d.id DESC
LIMIT ?1

-- The first sighting of a lesson in a session (ignored when the session saw it before).
INSERT INTO lesson_sightings (lesson_id, session_id, first_at) VALUES (?1, ?2, ?3)
ON CONFLICT (lesson_id, session_id) DO NOTHING

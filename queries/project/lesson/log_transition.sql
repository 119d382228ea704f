-- One garden transition, for the record.
INSERT INTO lesson_garden_log (at, lesson_id, from_status, to_status, reason) VALUES (?1, ?2, ?3, ?4, ?5)

-- A forgotten or moved lesson's sightings.
DELETE FROM lesson_sightings WHERE lesson_id = ?1

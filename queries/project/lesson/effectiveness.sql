-- The lesson_effectiveness row of each injected lesson of this project.
SELECT lesson_id, injected, graded, helped, neutral, verdict FROM lesson_effectiveness

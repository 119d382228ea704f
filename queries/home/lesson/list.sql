-- Every lesson, heaviest and newest first.
SELECT id, instruction, gate, tokens, avoid, ref, until, source, category, status, weight, hits, created_at, updated_at
FROM lessons ORDER BY weight DESC, updated_at DESC

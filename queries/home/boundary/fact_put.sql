-- Records a fact of the machine an operator command observed (?1 name, ?2 value, ?3 when).
INSERT INTO machine_facts (name, value, recorded_at) VALUES (?1, ?2, ?3)
ON CONFLICT (name) DO UPDATE SET value = excluded.value, recorded_at = excluded.recorded_at

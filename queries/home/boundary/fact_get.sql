-- A recorded fact of the machine (?1 name).
SELECT value FROM machine_facts WHERE name = ?1

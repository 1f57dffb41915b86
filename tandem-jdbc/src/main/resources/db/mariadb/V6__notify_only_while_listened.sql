-- The relay instance's "listening" flag, as on PostgreSQL (where the insert trigger notifies only
-- while some relay listens). MariaDB has no notifications: its relays poll, the flag stays true.
ALTER TABLE tandem_relay_instance ADD COLUMN listening BOOLEAN NOT NULL DEFAULT TRUE;

CREATE TABLE app_table (id text PRIMARY KEY);
CREATE TABLE shipments (event_id uuid, order_id text);
CREATE TABLE charges (saga_id uuid);

CREATE TABLE IF NOT EXISTS orders (
    id       text PRIMARY KEY,
    item     text NOT NULL,
    quantity integer NOT NULL,
    status   text NOT NULL,
    version  bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS shipments (
    shipment_id text PRIMARY KEY,
    order_id    text NOT NULL REFERENCES orders (id)
);

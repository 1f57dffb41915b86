-- The dashboard's audit log (tandem dashboard): every action an operator took through the web
-- console (replay or skip of a quarantined event, ...), who and from where, and how it ended.
-- Written only after the request carried the dashboard's token; rows are never updated.
CREATE TABLE tandem_dashboard_action (
    id          bigint      GENERATED ALWAYS AS IDENTITY,
    acted_at    timestamptz NOT NULL DEFAULT now(),
    operator    text        NOT NULL,
    remote      text        NOT NULL,
    action      text        NOT NULL,
    target      text        NOT NULL,
    outcome     text        NOT NULL,
    detail      text,
    CONSTRAINT tandem_dashboard_action_pkey PRIMARY KEY (id),
    CONSTRAINT tandem_dashboard_action_outcome CHECK (outcome IN ('DONE', 'FAILED'))
);

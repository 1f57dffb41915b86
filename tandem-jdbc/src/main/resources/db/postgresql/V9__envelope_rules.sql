-- The envelope's rules (io.tandem.core.EventRule), checked at insert for rows appended by plain SQL.
--
-- Event.Builder refuses an invalid event before Outbox.append writes it; a service in another
-- language writes the row itself. Before this migration the table let in rows the envelope
-- refuses (a header key in capitals, an aggregate id with a trailing space, a malformed
-- traceparent, a payload of 50 MiB), and the relay could not read them. Each constraint below
-- says one rule in its name, so the writer's error names what to fix. What a CHECK cannot say the
-- relay still checks when it reads a row: it quarantines a row it cannot decode, with the reason,
-- and publishes the rest.
--
-- Rows already in the table are exempt: each constraint reads "id <= <the last id before this
-- migration> OR <the rule>". PostgreSQL checks a CHECK again at every UPDATE of a row, so a
-- constraint merely NOT VALID would keep the relay from quarantining (or marking, or an operator
-- from skipping) an old row that breaks it. The relay quarantines such an old row instead. The
-- table is locked while the last id is read and the constraints are added.
--
-- "White space" is EventRule.isWhiteSpace: U+0009-000D, U+001C-001F, U+0020, U+0085, U+00A0,
-- U+1680, U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000. "Control character" is Unicode's
-- Cc: U+0000-001F and U+007F-009F (text cannot hold U+0000). The sizes are EventLimits' defaults;
-- an application that raises them replaces the constraint (docs/outbox.md shows how). The
-- expressions use jsonpath in strict mode (jsonb_path_exists with silent => true: a document of
-- the wrong shape is left to tandem_outbox_headers_object) and need a UTF8 database.

LOCK TABLE tandem_outbox IN ACCESS EXCLUSIVE MODE;

DO $migration$
DECLARE
    last_old_row bigint;
    constraints text;
BEGIN
    SELECT coalesce(max(id), 0) INTO last_old_row FROM tandem_outbox;
    -- One ALTER TABLE: one scan of the table validates all of them.
    SELECT string_agg(format('ADD CONSTRAINT %I CHECK (id <= %s OR (%s))',
                             name, last_old_row, expression), ', ')
      INTO constraints
      FROM (VALUES
        ('tandem_outbox_names_at_most_255_characters', $rule$
            char_length(aggregate_type) <= 255 AND char_length(aggregate_id) <= 255
            AND char_length(event_type) <= 255 $rule$),
        ('tandem_outbox_names_without_control_characters', $rule$
            aggregate_type !~ '[\u0001-\u001f\u007f-\u009f]'
            AND aggregate_id !~ '[\u0001-\u001f\u007f-\u009f]'
            AND event_type !~ '[\u0001-\u001f\u007f-\u009f]' $rule$),
        -- The control characters among the white space are refused by the rule above.
        ('tandem_outbox_names_without_surrounding_space', $rule$
            aggregate_type !~ '^[\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$'
            AND aggregate_id !~ '^[\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$'
            AND event_type !~ '^[\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$' $rule$),
        -- Measured on the stored document as PostgreSQL renders it, which is what the relay
        -- publishes (a space after each ':' and ','; numbers in their plain form): a payload close
        -- to the limit that Event accepted as written can be refused here.
        ('tandem_outbox_payload_at_most_1_mib', $rule$ octet_length(payload::text) <= 1048576 $rule$),
        ('tandem_outbox_header_keys_1_to_20_lowercase_letters_or_digits', $rule$
            NOT jsonb_path_exists(headers,
                'strict $.keyvalue() ? (!(@.key like_regex "^[a-z0-9]{1,20}$"))', '{}', true) $rule$),
        -- EventHeaders.RESERVED: the CloudEvents attributes and the extensions Tandem sets itself.
        ('tandem_outbox_header_keys_not_reserved', $rule$
            NOT (headers ?| ARRAY['id', 'source', 'type', 'subject', 'time', 'data', 'specversion',
                'datacontenttype', 'dataschema', 'partitionkey', 'sequence', 'aggregatetype',
                'schemaversion']) $rule$),
        ('tandem_outbox_header_values_strings', $rule$
            NOT jsonb_path_exists(headers, 'strict $.* ? (@.type() != "string")', '{}', true) $rule$),
        -- jsonpath turns the \uXXXX escapes of its string literal into the characters themselves.
        ('tandem_outbox_header_values_not_blank', $rule$
            NOT jsonb_path_exists(headers,
                'strict $.* ? (@ like_regex "^[\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$")',
                '{}', true) $rule$),
        ('tandem_outbox_traceparent_w3c_format', $rule$
            NOT jsonb_path_exists(headers,
                'strict $.traceparent ? (!(@ like_regex "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$"))',
                '{}', true) $rule$),
        -- The size of the compact JSON Event measures: PostgreSQL renders an object of n strings
        -- with one space after each ':' and each ',', 2n - 1 bytes more; its string escapes are
        -- JSON's own.
        ('tandem_outbox_headers_at_most_16_kib', $rule$
            octet_length(headers::text)
                - greatest(2 * jsonb_array_length(
                    jsonb_path_query_array(headers, 'strict $.*', '{}', true)) - 1, 0)
                <= 16384 $rule$),
        -- MariaDB's DATETIME range, within RFC 3339's four-digit years (CloudEvents time);
        -- excludes 'infinity' and '-infinity'.
        ('tandem_outbox_occurred_at_between_years_1000_and_9999', $rule$
            occurred_at >= '1000-01-01 00:00:00+00' AND occurred_at < '10000-01-01 00:00:00+00' $rule$)
    ) AS rules (name, expression);
    EXECUTE 'ALTER TABLE tandem_outbox ' || constraints;
END
$migration$;

-- The envelope's rules (io.tandem.core.EventRule), checked at insert for rows appended by plain
-- SQL, as PostgreSQL's V9 does.
--
-- Event.Builder refuses an invalid event before Outbox.append writes it; a service in another
-- language writes the row itself. Each constraint below says one rule in its name, so the
-- writer's error names what to fix. The two rules a CHECK cannot say here (every header value is
-- a string, and none is blank: they need a loop over the object) are checked by the insert
-- trigger at the end, whose errors start with the same kind of name. What the database does not
-- check the relay still checks when it reads a row: it quarantines a row it cannot decode, with
-- the reason, and publishes the rest.
--
-- Rows already in the table are exempt: each constraint reads "created_at <= <the newest row's
-- created_at before this migration> OR <the rule>" (MariaDB refuses the AUTO_INCREMENT id in a
-- CHECK). MariaDB checks a CHECK again at every UPDATE of a row, so without the exemption the
-- relay could not quarantine (or mark, or an operator skip) an old row that breaks a rule. The
-- relay quarantines such an old row instead; so it does a new row whose writer back-dated its
-- created_at. The table is locked while the constraints are added.
--
-- No backslash escapes: a character set is written as code points, matched on the column's
-- UTF-32 hex form (HEX(CONVERT(x USING utf32)): 8 hex digits per character, so '^(...)' and
-- '(...)$' of 8-digit alternatives match the first and the last character). "White space" is
-- EventRule.isWhiteSpace, "control character" Unicode's Cc ((*UCP)[[:cntrl:]]). (?-i) makes a
-- pattern case-sensitive whatever the collation of the text it is matched on. The sizes are
-- EventLimits' defaults; an application that raises them replaces the constraint
-- (docs/outbox.md shows how). In the procedure the rules are string literals: '' is one quote.

DELIMITER $$

CREATE PROCEDURE tandem_add_envelope_rules()
BEGIN
    DECLARE exempt TEXT;
    DECLARE surrounding_space TEXT DEFAULT
        '''^(00000020|000000A0|00001680|0000200[0-9A]|0000202[89F]|0000205F|00003000)|(00000020|000000A0|00001680|0000200[0-9A]|0000202[89F]|0000205F|00003000)$''';
    SELECT CONCAT(' CHECK (created_at <= ''',
                  DATE_FORMAT(COALESCE(MAX(created_at), '1000-01-01'), '%Y-%m-%d %H:%i:%s.%f'),
                  ''' OR (')
      INTO exempt FROM tandem_outbox;
    SET @tandem_envelope_rules = CONCAT('ALTER TABLE tandem_outbox',
        -- VARCHAR(255) refuses a longer name already (in strict mode; without it MariaDB
        -- truncates the value, before any check sees it); named as on PostgreSQL.
        ' ADD CONSTRAINT tandem_outbox_names_at_most_255_characters', exempt,
            'CHAR_LENGTH(aggregate_type) <= 255 AND CHAR_LENGTH(aggregate_id) <= 255',
            ' AND CHAR_LENGTH(event_type) <= 255)),',
        ' ADD CONSTRAINT tandem_outbox_names_without_control_characters', exempt,
            'aggregate_type NOT REGEXP ''(*UCP)[[:cntrl:]]''',
            ' AND aggregate_id NOT REGEXP ''(*UCP)[[:cntrl:]]''',
            ' AND event_type NOT REGEXP ''(*UCP)[[:cntrl:]]'')),',
        -- The control characters among the white space are refused by the rule above.
        ' ADD CONSTRAINT tandem_outbox_names_without_surrounding_space', exempt,
            'HEX(CONVERT(aggregate_type USING utf32)) NOT REGEXP ', surrounding_space,
            ' AND HEX(CONVERT(aggregate_id USING utf32)) NOT REGEXP ', surrounding_space,
            ' AND HEX(CONVERT(event_type USING utf32)) NOT REGEXP ', surrounding_space, ')),',
        -- The payload as stored, which is what the relay publishes.
        ' ADD CONSTRAINT tandem_outbox_payload_at_most_1_mib', exempt,
            'OCTET_LENGTH(payload) <= 1048576)),',
        -- JSON_KEYS renders the keys as a JSON array, '["a", "b"]'; a key with any other
        -- character (an escape included) does not match.
        ' ADD CONSTRAINT tandem_outbox_header_keys_1_to_20_lowercase_letters_or_digits', exempt,
            'NOT JSON_VALID(headers) OR JSON_KEYS(headers) REGEXP',
            ' ''(?-i)^[[]("[a-z0-9]{1,20}"(, "[a-z0-9]{1,20}")*)?[]]$'')),',
        -- EventHeaders.RESERVED: the CloudEvents attributes and the extensions Tandem sets.
        ' ADD CONSTRAINT tandem_outbox_header_keys_not_reserved', exempt,
            'NOT JSON_VALID(headers) OR NOT JSON_CONTAINS_PATH(headers, ''one'', ''$.id'',',
            ' ''$.source'', ''$.type'', ''$.subject'', ''$.time'', ''$.data'', ''$.specversion'',',
            ' ''$.datacontenttype'', ''$.dataschema'', ''$.partitionkey'', ''$.sequence'',',
            ' ''$.aggregatetype'', ''$.schemaversion''))),',
        -- 55 characters: PCRE's '$' also matches before a final newline.
        ' ADD CONSTRAINT tandem_outbox_traceparent_w3c_format', exempt,
            'NOT JSON_VALID(headers) OR JSON_VALUE(headers, ''$.traceparent'') IS NULL',
            ' OR (CHAR_LENGTH(JSON_VALUE(headers, ''$.traceparent'')) = 55',
            ' AND JSON_VALUE(headers, ''$.traceparent'')',
            ' REGEXP ''(?-i)^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$''))),',
        -- Compact JSON, as Event measures it (JSON_COMPACT keeps a writer's escapes as written).
        ' ADD CONSTRAINT tandem_outbox_headers_at_most_16_kib', exempt,
            'NOT JSON_VALID(headers) OR OCTET_LENGTH(JSON_COMPACT(headers)) <= 16384)),',
        -- DATETIME's range (RFC 3339's four-digit years, CloudEvents time); excludes the zero
        -- date that a server without NO_ZERO_DATE lets in.
        ' ADD CONSTRAINT tandem_outbox_occurred_at_between_years_1000_and_9999', exempt,
            'occurred_at >= ''1000-01-01 00:00:00''))');
    PREPARE tandem_envelope_rules FROM @tandem_envelope_rules;
    EXECUTE tandem_envelope_rules;
    DEALLOCATE PREPARE tandem_envelope_rules;
    SET @tandem_envelope_rules = NULL;
END$$

DELIMITER ;

LOCK TABLES tandem_outbox WRITE;
CALL tandem_add_envelope_rules();
UNLOCK TABLES;
DROP PROCEDURE tandem_add_envelope_rules;

DELIMITER $$

-- Every header value is a JSON string that is not blank. Keys that break their own rule are left
-- to tandem_outbox_header_keys_1_to_20_lowercase_letters_or_digits (this trigger runs before the
-- CHECKs), non-objects to tandem_outbox_headers_object.
CREATE TRIGGER tandem_outbox_check_headers BEFORE INSERT ON tandem_outbox
FOR EACH ROW
BEGIN
    DECLARE header_keys LONGTEXT;
    DECLARE header_key VARCHAR(255);
    DECLARE header_value LONGTEXT;
    DECLARE i INT DEFAULT 0;
    DECLARE message VARCHAR(255);
    IF JSON_VALID(NEW.headers) AND JSON_TYPE(NEW.headers) = 'OBJECT' THEN
        SET header_keys = JSON_KEYS(NEW.headers);
        WHILE i < JSON_LENGTH(header_keys) DO
            SET header_key = JSON_VALUE(header_keys, CONCAT('$[', i, ']'));
            IF header_key REGEXP '(?-i)^[a-z0-9]{1,20}$' THEN
                SET header_value = JSON_EXTRACT(NEW.headers, CONCAT('$."', header_key, '"'));
                IF JSON_TYPE(header_value) <> 'STRING' THEN
                    SET message = CONCAT('tandem_outbox_header_values_strings: the value of header ''',
                                         header_key, ''' is ', JSON_TYPE(header_value),
                                         ', not a JSON string');
                    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = message;
                END IF;
                IF HEX(CONVERT(JSON_UNQUOTE(header_value) USING utf32)) REGEXP
                    '^(0000000[9A-D]|0000001[C-F]|00000020|00000085|000000A0|00001680|0000200[0-9A]|0000202[89F]|0000205F|00003000)*$' THEN
                    SET message = CONCAT('tandem_outbox_header_values_not_blank: the value of header ''',
                                         header_key, ''' is empty or white space');
                    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = message;
                END IF;
            END IF;
            SET i = i + 1;
        END WHILE;
    END IF;
END$$

DELIMITER ;

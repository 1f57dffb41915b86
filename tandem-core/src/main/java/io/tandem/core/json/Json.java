package io.tandem.core.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/** The one Jackson mapper of Tandem, configured strictly (no trailing tokens). */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final TypeReference<LinkedHashMap<String, String>> STRING_MAP =
      new TypeReference<>() {};

  /**
   * The longest text that cannot break the reader's limits (a number of more digits, a deeper
   * nesting, a longer name or string than {@code StreamReadConstraints} allows): 1,000 characters
   * with Jackson's defaults. Valid JSON this short always parses.
   */
  public static final int LONGEST_ALWAYS_WITHIN_LIMITS;

  static {
    com.fasterxml.jackson.core.StreamReadConstraints limits =
        MAPPER.getFactory().streamReadConstraints();
    LONGEST_ALWAYS_WITHIN_LIMITS =
        Math.min(
            Math.min(limits.getMaxNumberLength(), limits.getMaxNestingDepth()),
            Math.min(limits.getMaxNameLength(), limits.getMaxStringLength()));
  }

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Parses a JSON document; throws {@link JsonProcessingException} with the parser's reason. */
  public static JsonNode parse(String text) throws JsonProcessingException {
    return MAPPER.readTree(text);
  }

  /**
   * Checks that {@code text} is exactly one JSON document, token by token without building a tree.
   */
  public static void validate(String text) throws JsonProcessingException {
    try (com.fasterxml.jackson.core.JsonParser parser = MAPPER.getFactory().createParser(text)) {
      if (parser.nextToken() == null) {
        throw new com.fasterxml.jackson.core.JsonParseException(parser, "no JSON document");
      }
      parser.skipChildren();
      if (parser.nextToken() != null) {
        throw new com.fasterxml.jackson.core.JsonParseException(
            parser, "trailing content after the JSON document");
      }
    } catch (JsonProcessingException e) {
      throw e;
    } catch (java.io.IOException e) {
      throw new IllegalStateException("reading a string cannot fail", e);
    }
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize " + value.getClass().getName(), e);
    }
  }

  /** Reads a JSON object of string values, as stored in the outbox's {@code headers} column. */
  public static Map<String, String> readStringMap(String text) {
    if (text == null || text.isBlank()) {
      return Map.of();
    }
    try {
      return MAPPER.readValue(text, STRING_MAP);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("headers are not a JSON object of strings: " + text, e);
    }
  }
}

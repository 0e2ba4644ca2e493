package dev.leasekit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** JSON conversions at the native boundary (Jackson, with exact decimals). */
final class Json {
  /** Numbers with a fraction are read as {@link BigDecimal}, never as {@code double}. */
  static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .build();

  private Json() {}

  /** Parses JSON text; malformed text is an {@link InvalidRequestException}. */
  static JsonNode parse(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException("invalid JSON: " + e.getOriginalMessage());
    }
  }

  /** Serializes a value (maps, lists, strings) to JSON text. */
  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new InternalErrorException("cannot serialize to JSON: " + e.getOriginalMessage());
    }
  }

  /** A JSON object as an unmodifiable map of plain Java values ({@code {}} for non-objects). */
  static Map<String, Object> toMap(JsonNode node) {
    if (node == null || !node.isObject()) {
      return Map.of();
    }
    Map<String, Object> out =
        MAPPER.convertValue(node, new TypeReference<LinkedHashMap<String, Object>>() {});
    return Collections.unmodifiableMap(out);
  }

  /** {@code {cur: "dec"}} as a sorted, unmodifiable map of exact amounts. */
  static Map<String, BigDecimal> amounts(String json) {
    JsonNode node = parse(json);
    Map<String, BigDecimal> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), new BigDecimal(e.getValue().asText()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** A JSON array of {@code {"name","value","unit"}} as metrics. */
  static List<Metric> metrics(String json) {
    JsonNode node = parse(json);
    List<Metric> out = new ArrayList<>();
    for (JsonNode m : node) {
      out.add(
          new Metric(
              m.path("name").asText(),
              new BigDecimal(m.path("value").asText()),
              m.path("unit").asText()));
    }
    return List.copyOf(out);
  }

  /** A JSON array of strings as a list. */
  static List<String> strings(JsonNode node) {
    List<String> out = new ArrayList<>();
    for (JsonNode s : node) {
      out.add(s.asText());
    }
    return List.copyOf(out);
  }
}

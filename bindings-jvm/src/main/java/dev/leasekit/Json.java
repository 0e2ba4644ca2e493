package dev.leasekit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** JSON conversions at the native boundary (Jackson, with exact decimals). */
final class Json {
  /** Numbers with a fraction are read as {@link BigDecimal}, never as {@code double}. */
  static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
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

  /** Core's JSON bound to {@code type} (a record binds by component name). */
  static <T> T read(JsonNode node, Class<T> type) {
    return MAPPER.convertValue(node, type);
  }

  /** {@code {cur: "dec"}} as a sorted, unmodifiable map of exact amounts. */
  static Map<String, BigDecimal> amounts(String json) {
    Map<String, BigDecimal> out = new TreeMap<>();
    parse(json).fields().forEachRemaining(e -> out.put(e.getKey(), decimal(e.getValue())));
    return Collections.unmodifiableMap(out);
  }

  /** A JSON array of {@code {"name","value","unit"}} as metrics. */
  static List<Metric> metrics(String json) {
    List<Metric> out = new ArrayList<>();
    for (JsonNode m : parse(json)) {
      out.add(
          new Metric(m.path("name").asText(), decimal(m.path("value")), m.path("unit").asText()));
    }
    return List.copyOf(out);
  }

  /** A decimal string of core's JSON as an exact amount. */
  static BigDecimal decimal(JsonNode text) {
    return new BigDecimal(text.asText());
  }

  /**
   * The decimal text of a caller's amount. Only a plain {@link BigDecimal} is accepted: {@code
   * BigDecimal} is not final, and a subclass could report a different {@code toPlainString()} than
   * its value.
   */
  static String amountText(BigDecimal amount) {
    Objects.requireNonNull(amount, "amount");
    if (amount.getClass() != BigDecimal.class) {
      throw new InvalidRequestException(
          "an amount must be a java.math.BigDecimal, not " + amount.getClass().getName());
    }
    return amount.toPlainString();
  }

  /**
   * A caller's lease map as plain data, read once through {@code entrySet()}: every key a {@code
   * String}, every value a {@code Collection} of {@code String}s, copied into fresh lists (so a Map
   * or Collection subclass cannot show the core something else later, and nothing but those entries
   * is read). Anything else is an {@link InvalidRequestException}.
   */
  static Map<String, List<String>> plainLease(Map<?, ?> capabilities) {
    Objects.requireNonNull(capabilities, "capabilities");
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : capabilities.entrySet()) {
      if (!(e.getKey() instanceof String capability)) {
        throw new InvalidRequestException("capability names must be strings");
      }
      if (!(e.getValue() instanceof Collection<?> patterns)) {
        throw new InvalidRequestException(
            capability + ": patterns must be a collection of strings");
      }
      List<String> copy = new ArrayList<>();
      for (Object p : patterns) {
        if (!(p instanceof String pattern)) {
          throw new InvalidRequestException(capability + ": patterns must be strings");
        }
        copy.add(pattern);
      }
      if (out.put(capability, copy) != null) {
        throw new InvalidRequestException("duplicate capability " + capability);
      }
    }
    return out;
  }

  /**
   * A caller's amount map ({@code currency -> BigDecimal}) as plain data, read once through {@code
   * entrySet()}: {@code {currency: "decimal text"}} (see {@link #amountText}).
   */
  static Map<String, String> plainAmounts(Map<?, ?> amounts) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<?, ?> e : amounts.entrySet()) {
      if (!(e.getKey() instanceof String currency)) {
        throw new InvalidRequestException("currencies must be strings");
      }
      if (!(e.getValue() instanceof BigDecimal amount)) {
        throw new InvalidRequestException(currency + ": the amount must be a BigDecimal");
      }
      if (out.put(currency, amountText(amount)) != null) {
        throw new InvalidRequestException("duplicate currency " + currency);
      }
    }
    return out;
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

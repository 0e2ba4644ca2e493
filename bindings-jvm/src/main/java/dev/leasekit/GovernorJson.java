package dev.leasekit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON conversions of the governor surface ({@link GovernorApi}): a caller's request map as
 * plain JSON text, and core's answer as a map. The shapes themselves are core's; nothing here
 * checks a field (core's strict call refuses an unknown or mistyped one).
 */
final class GovernorJson {
  /** Nesting allowed in a request map (core's own limit on payload JSON is far above real use). */
  static final int MAX_DEPTH = 64;

  /** Answers: integers as Integer/Long/BigInteger, fractions as exact BigDecimal. */
  private static final ObjectMapper ANSWERS =
      JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  private GovernorJson() {}

  /**
   * A request map as JSON text. The map is read once through {@code entrySet()} and copied as plain
   * data (so a Map or Collection subclass cannot show the core something else, and nothing but
   * those entries is read): keys are Strings; values are null, String, Boolean, Integer, Long,
   * Short, Byte, BigInteger, BigDecimal (exactly these classes), a finite Double or Float, a Map or
   * a Collection of such. Anything else is an {@link InvalidRequestException}. {@code null} is
   * {@code {}}.
   */
  static String payload(Map<String, ?> request) {
    if (request == null) {
      return "{}";
    }
    return Json.write(plain(request, 0));
  }

  /** JSON text as given ({@code null}: {@code {}}). */
  static String payload(String requestJson) {
    return requestJson == null ? "{}" : requestJson;
  }

  /** Core's answer (a JSON object) as an unmodifiable map. */
  static Map<String, Object> answer(String json) {
    try {
      Map<String, Object> out =
          ANSWERS.readValue(json, new TypeReference<LinkedHashMap<String, Object>>() {});
      return Collections.unmodifiableMap(out);
    } catch (JsonProcessingException e) {
      throw new InternalErrorException("the governor answered invalid JSON: " + e.getMessage());
    }
  }

  private static Object plain(Object value, int depth) {
    if (depth > MAX_DEPTH) {
      throw new InvalidRequestException("the request is nested deeper than " + MAX_DEPTH);
    }
    if (value == null
        || value instanceof String
        || value instanceof Boolean
        || value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte) {
      return value;
    }
    if (value.getClass() == BigDecimal.class || value.getClass() == BigInteger.class) {
      return value;
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (!Double.isFinite(d)) {
        throw new InvalidRequestException("a number in the request is not finite: " + value);
      }
      return value;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new InvalidRequestException("request field names must be strings");
        }
        if (out.containsKey(key)) {
          throw new InvalidRequestException("duplicate request field " + key);
        }
        out.put(key, plain(e.getValue(), depth + 1));
      }
      return out;
    }
    if (value instanceof Collection<?> items) {
      List<Object> out = new ArrayList<>();
      for (Object item : items) {
        out.add(plain(item, depth + 1));
      }
      return out;
    }
    throw new InvalidRequestException(
        "a request value must be plain JSON data, not " + value.getClass().getName());
  }
}

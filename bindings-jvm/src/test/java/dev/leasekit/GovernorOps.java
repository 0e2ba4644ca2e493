package dev.leasekit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Conformance ops {@code governor} and {@code frame_decode} of the JVM runner (docs/api.md,
 * conformance/README.md): every step goes through {@link Governor}, as the Python runner does.
 */
final class GovernorOps {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private GovernorOps() {}

  /** Opens the vector's governor at {@code time}, with deterministic ids. */
  private static Governor open(JsonNode in, String store, String time) {
    ObjectNode options = NODES.objectNode();
    JsonNode given = in.get("options");
    if (given != null && given.isObject()) {
      options.setAll((ObjectNode) given);
    }
    options.put("manualClock", time);
    options.put("ids", "deterministic");
    JsonNode policy = in.get("policy");
    String policyJson = policy == null ? null : Json.write(policy);
    return Governor.open(store, policyJson, Json.write(options));
  }

  /** Runs a {@code governor} vector: one result per step. */
  static JsonNode governor(JsonNode in) {
    String kind = in.path("store").asText("memory");
    if (!kind.equals("memory") && !kind.equals("sqlite")) {
      throw new AssertionError("unknown store " + kind);
    }
    Path tmp;
    try {
      tmp = Files.createTempDirectory("leasekit-jvm-gov-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      String store = kind.equals("sqlite") ? tmp.resolve("gov.db").toString() : "memory";
      Governor gov = open(in, store, in.path("start").asText());
      ArrayNode out = NODES.arrayNode();
      try {
        for (JsonNode step : in.path("steps")) {
          JsonNode at = step.get("at");
          if (at != null && at.isTextual() && at.asText().startsWith("+")) {
            gov.advanceTime(Long.parseLong(at.asText().substring(1)));
          } else if (at != null && !at.isNull()) {
            gov.setTime(at.asText());
          }
          if (step.has("restart")) {
            if (!kind.equals("sqlite")) {
              throw new AssertionError("restart needs store sqlite");
            }
            String now = gov.time().toString();
            gov.close();
            gov = open(in, store, now);
            out.add("ok");
          } else if (step.has("verify_audit")) {
            out.add(Json.MAPPER.valueToTree(gov.verifyAudit()));
          } else {
            JsonNode payload = step.path("payload");
            String text = payload.isTextual() ? payload.asText() : Json.write(payload);
            JsonNode env = Json.parse(gov.handle(step.path("command").asText(), text));
            if (env.path("success").asBoolean()) {
              out.add(Json.parse(env.path("payloadJson").asText()));
            } else {
              out.add(NODES.objectNode().put("success", false).set("error", env.get("error")));
            }
          }
        }
      } finally {
        gov.close();
      }
      return out;
    } finally {
      deleteTree(tmp);
    }
  }

  /** Runs a {@code frame_decode} vector: the decoded command. */
  static JsonNode frameDecode(JsonNode in) {
    byte[] bytes = hex(in.path("hex").asText());
    Map<String, Object> envelope = Governor.decodeFrame(bytes);
    return NODES.objectNode().put("command", (String) envelope.get("command"));
  }

  static byte[] hex(String text) {
    if (text.length() % 2 != 0) {
      throw new AssertionError("odd hex length: " + text);
    }
    byte[] out = new byte[text.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- comparison (as the Python and Rust runners) ----

  /**
   * One expect entry per step; {@code {"success": false}} matches a failed command and only that.
   * Within an entry only the keys present in the expectation are compared.
   */
  static boolean equal(JsonNode want, JsonNode got) {
    if (!want.isArray() || !got.isArray() || want.size() != got.size()) {
      return false;
    }
    for (int i = 0; i < want.size(); i++) {
      JsonNode w = want.get(i);
      JsonNode g = got.get(i);
      boolean failed =
          g.isObject() && g.path("success").isBoolean() && !g.path("success").asBoolean();
      boolean wantsFailure =
          w.isObject() && w.path("success").isBoolean() && !w.path("success").asBoolean();
      if (failed != wantsFailure || !partial(w, g)) {
        return false;
      }
    }
    return true;
  }

  private static boolean partial(JsonNode want, JsonNode got) {
    if (want.isObject() && got.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = want.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode g = got.get(e.getKey());
        if (g == null) {
          return false;
        }
        boolean same =
            e.getKey().equals("effectiveLease")
                ? leaseSets(e.getValue(), g)
                : partial(e.getValue(), g);
        if (!same) {
          return false;
        }
      }
      return true;
    }
    if (want.isArray() && got.isArray()) {
      if (want.size() != got.size()) {
        return false;
      }
      for (int i = 0; i < want.size(); i++) {
        if (!partial(want.get(i), got.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (want.isBoolean() || got.isBoolean()) {
      return want.isBoolean() && got.isBoolean() && want.asBoolean() == got.asBoolean();
    }
    if (want.isNumber() && got.isNumber()) {
      return want.decimalValue().compareTo(got.decimalValue()) == 0;
    }
    if (want.isTextual() && got.isTextual()) {
      if (want.asText().equals(got.asText())) {
        return true;
      }
      BigDecimal a = decimal(want.asText());
      BigDecimal b = decimal(got.asText());
      return a != null && b != null && a.compareTo(b) == 0;
    }
    return want.equals(got);
  }

  private static BigDecimal decimal(String text) {
    try {
      return new BigDecimal(text.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static boolean leaseSets(JsonNode want, JsonNode got) {
    if (!want.isObject() || !got.isObject()) {
      return want.equals(got);
    }
    Set<String> wk = new HashSet<>();
    want.fieldNames().forEachRemaining(wk::add);
    Set<String> gk = new HashSet<>();
    got.fieldNames().forEachRemaining(gk::add);
    if (!wk.equals(gk)) {
      return false;
    }
    for (String k : wk) {
      if (!patternSet(want.get(k)).equals(patternSet(got.get(k)))) {
        return false;
      }
    }
    return true;
  }

  private static Set<String> patternSet(JsonNode patterns) {
    Set<String> out = new HashSet<>();
    if (patterns.isArray()) {
      patterns.forEach(p -> out.add(p.toString()));
    } else {
      out.add("not a list: " + patterns);
    }
    return out;
  }
}

package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Java codes and exception classes equal conformance/error-codes.json, in order. */
class ErrorCodeParityTest {
  static JsonNode codesFile() throws IOException {
    String path = System.getProperty("leasekit.error.codes", "../conformance/error-codes.json");
    return Json.MAPPER.readTree(Path.of(path).toFile());
  }

  @Test
  void enumEqualsTheSharedCodeList() throws IOException {
    List<String> shared = new ArrayList<>();
    List<String> sharedRetryable = new ArrayList<>();
    for (JsonNode c : codesFile().path("codes")) {
      shared.add(c.path("code").asText());
      sharedRetryable.add(c.path("code").asText() + "=" + c.path("retryable").asBoolean());
    }
    assertEquals(15, shared.size());
    assertEquals(shared, Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
    assertEquals(
        sharedRetryable,
        Arrays.stream(ErrorCode.values()).map(c -> c.name() + "=" + c.retryable()).toList());
  }

  @Test
  void everyCodeHasItsOwnExceptionClass() throws Exception {
    for (JsonNode c : codesFile().path("codes")) {
      String code = c.path("code").asText();
      StringBuilder name = new StringBuilder("dev.leasekit.");
      for (String word : code.split("_")) {
        name.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
      }
      name.append("Exception");
      Class<?> cls = Class.forName(name.toString());
      assertTrue(LeaseException.class.isAssignableFrom(cls), cls + " extends LeaseException");
      LeaseException e = LeaseException.of(ErrorCode.valueOf(code), "m", Map.of("k", "v"));
      assertEquals(cls, e.getClass());
      assertEquals(code, e.code().name());
      assertEquals(c.path("retryable").asBoolean(), e.retryable());
      assertEquals(Map.of("k", "v"), e.details());
      assertInstanceOf(RuntimeException.class, e);
    }
  }

  @Test
  void nativeErrorJsonBecomesTheTypedException() {
    LeaseException e =
        LeaseException.fromNative(
            "{\"code\":\"LEASE_SUBSET_VIOLATION\",\"message\":\"no\",\"retryable\":false,"
                + "\"details\":{\"capability\":\"fs.read\",\"pattern\":\"/a/**\",\"witness\":\"/a/x/y\"}}");
    LeaseSubsetViolationException v = assertInstanceOf(LeaseSubsetViolationException.class, e);
    assertEquals("fs.read", v.capability().orElseThrow());
    assertEquals("/a/**", v.pattern().orElseThrow());
    assertEquals("/a/x/y", v.witness().orElseThrow());
    assertEquals("no", v.getMessage());
    assertInstanceOf(InternalErrorException.class, LeaseException.fromNative("not json"));
    assertInstanceOf(
        InternalErrorException.class, LeaseException.fromNative("{\"code\":\"NOPE\"}"));
  }
}

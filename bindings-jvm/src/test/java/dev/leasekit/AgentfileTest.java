package dev.leasekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The Agentfile object API: core's nine Agentfile functions through {@link Agentfile}. */
class AgentfileTest {
  static final String GOOD =
      """
      # syntax=agentrc.agentfile/v0.1
      AGENT hello-local
      CMD strands run --agent hello-local
      TOOL utcp:file_read
      URL https://api.example.com
      MOUNT /data ro
      AUDIT basic
      POLICY
      permit(
        principal == AgentRC::Agent::"hello-local",
        action in [AgentRC::Action::"tool.invoke"],
        resource == AgentRC::Tool::"file_read"
      );
      END
      """;

  static final String AGENT = "AgentRC::Agent::\"hello-local\"";
  static final String INVOKE = "AgentRC::Action::\"tool.invoke\"";

  @Test
  void parsesAGoodFile() {
    Agentfile af = Agentfile.parse(GOOD);
    assertFalse(af.hasErrors());
    assertTrue(af.diagnostics().stream().noneMatch(Agentfile.Diagnostic::isError));
    assertTrue(af.lint().stream().noneMatch(Agentfile.Diagnostic::isError), af.lint().toString());
    Map<String, Object> json = Json.toMap(Json.parse(af.toJson()));
    assertTrue(json.get("source_sha256").toString().startsWith("sha256:"));
    assertTrue(af.toString().startsWith("Agentfile(directives=7, hasErrors=false"), af.toString());
  }

  @Test
  void parseNeverThrowsOnBadContent() {
    Agentfile af = Agentfile.parse("\u0000\u0001 nonsense\nagent x\n".repeat(50));
    assertTrue(af.hasErrors());
    assertTrue(af.diagnostics().stream().anyMatch(d -> d.code().equals("lowercase-directive")));
  }

  @Test
  void lintAddsRulesToTheParseDiagnostics() {
    // An unknown directive parses with an error; lint keeps it, by position.
    Agentfile af = Agentfile.parse("AGENT a\nAUDIT basic\nFOO bar\n");
    List<Agentfile.Diagnostic> lint = af.lint();
    assertEquals(
        Set.of("unknown-directive"),
        Set.copyOf(
            lint.stream().filter(Agentfile.Diagnostic::isError).map(d -> d.code()).toList()));
    assertEquals(3, lint.stream().filter(Agentfile.Diagnostic::isError).findFirst().get().line());
  }

  @Test
  void derivesTheLease() {
    Lease lease = Agentfile.parse(GOOD).lease();
    Map<String, List<String>> caps = lease.asMap();
    assertEquals(List.of("utcp:file_read"), caps.get("tool.call"));
    assertEquals(
        Set.of("https://api.example.com/", "https://api.example.com/**"),
        Set.copyOf(caps.get("net.fetch")));
    assertEquals(Set.of("/data", "/data/**"), Set.copyOf(caps.get("fs.read")));
    assertFalse(caps.containsKey("fs.write"));
    // The same lease as the one-call check.
    assertEquals(Agentfile.check(GOOD).lease().orElseThrow(), lease);
    assertThrows(InvalidRequestException.class, () -> Agentfile.parse("FOO bar\n").lease());
  }

  @Test
  void locksDeterministically() {
    Agentfile af = Agentfile.parse(GOOD);
    String text = af.lockfileJson();
    assertTrue(text.endsWith("\n"));
    assertEquals(text, Agentfile.parse(GOOD).lockfileJson());
    assertEquals(Json.toMap(Json.parse(text)), af.lock());
    assertThrows(InvalidRequestException.class, () -> Agentfile.parse("FOO bar\n").lock());
    assertThrows(InvalidRequestException.class, () -> Agentfile.parse("FOO bar\n").lockfileJson());
  }

  @Test
  void packageDigestIgnoresPlacement() {
    String digest = Agentfile.parse(GOOD).packageDigest();
    assertTrue(digest.matches("sha256:[0-9a-f]{64}"), digest);
    assertEquals(digest, Agentfile.parse(GOOD).packageDigest());
    String other = Agentfile.parse(GOOD.replace("utcp:file_read", "utcp:other")).packageDigest();
    assertFalse(digest.equals(other));
  }

  @Test
  void inheritanceMayOnlyNarrow() {
    Agentfile parent = Agentfile.parse("AGENT p\nAUDIT all\nTOOL utcp:a\nTOOL utcp:b\n");
    Agentfile.parse("AGENT c\nAUDIT all\nTOOL utcp:a\n").checkInheritance(parent);
    Agentfile wide = Agentfile.parse("AGENT c\nAUDIT all\nTOOL utcp:a\nTOOL utcp:z\n");
    assertThrows(LeaseSubsetViolationException.class, () -> wide.checkInheritance(parent));
    Agentfile lowered = Agentfile.parse("AGENT c\nAUDIT basic\nTOOL utcp:a\n");
    assertThrows(LeaseException.class, () -> lowered.checkInheritance(parent));
  }

  @Test
  void evaluatesPolicyFailingClosed() {
    Agentfile af = Agentfile.parse(GOOD);
    Agentfile.PolicyDecision allow =
        af.evaluatePolicy(AGENT, INVOKE, "AgentRC::Tool::\"file_read\"");
    assertTrue(allow.allowed(), allow.toString());
    assertTrue(allow.errors().isEmpty());
    assertFalse(allow.determining().isEmpty());
    assertFalse(af.evaluatePolicy(AGENT, INVOKE, "AgentRC::Tool::\"rm\"", Map.of()).allowed());
    Agentfile.PolicyDecision broken = af.evaluatePolicy("not an entity", "x", "y");
    assertFalse(broken.allowed());
    assertFalse(broken.errors().isEmpty());
    // A file with errors denies everything.
    assertFalse(
        Agentfile.parse("FOO bar\n")
            .evaluatePolicy(AGENT, INVOKE, "AgentRC::Tool::\"file_read\"")
            .allowed());
  }

  @Test
  void secretValuesNeverAppear() {
    String secret = "ghp_supersecretvalue123";
    String[] texts = {
      "AGENT a\nAUDIT basic\nCRED gh env:GH_TOKEN api.github.com " + secret + "\n",
      "AGENT a\nAUDIT basic\nCRED gh " + secret + " host:api.github.com\n",
      "AGENT a\nAUDIT basic\nCRED " + secret + "\n",
    };
    for (String text : texts) {
      Agentfile af = Agentfile.parse(text);
      StringBuilder everything = new StringBuilder();
      everything.append(af).append(af.toJson()).append(af.diagnostics()).append(af.lint());
      everything.append(Agentfile.check(text));
      everything.append(af.evaluatePolicy(AGENT, INVOKE, "AgentRC::Tool::\"x\""));
      everything.append(af.packageDigest());
      for (Runnable call : List.<Runnable>of(af::lockfileJson, af::lease, af::lock)) {
        try {
          call.run();
        } catch (LeaseException e) {
          everything.append(e.getMessage()).append(e.details());
        }
      }
      assertFalse(everything.toString().contains(secret), text);
      assertTrue(af.lint().stream().anyMatch(Agentfile.Diagnostic::isError), text);
    }
    // A well-formed CRED keeps its reference, never a value.
    Agentfile ok =
        Agentfile.parse("AGENT a\nAUDIT basic\nCRED gh env:GH_TOKEN host:api.github.com\n");
    assertTrue(ok.toJson().contains("env:GH_TOKEN"), ok.toJson());
  }
}

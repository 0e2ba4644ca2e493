//! `cargo bench -p leasekit --bench agentfile`: parse + lint of 1 MB Agentfiles.
//!
//! Target: parse + lint of a 1 MB Agentfile under 20 ms. Two shapes: one of plain
//! directives, comments and SOP blocks, and one that also carries a Cedar POLICY block every
//! ~64 KB (16 blocks; lint parses each with Cedar, roughly 50-100 us per block).

use divan::{Bencher, black_box};
use leasekit::agentfile::{ParseOptions, lint, parse_agentfile};

fn main() {
    divan::main();
}

/// About 1 MB of realistic directives; `policy_every` > 0 adds a POLICY block every that many
/// chunks.
fn agentfile(policy_every: usize) -> String {
    let mut s = String::from(
        "# syntax=agentrc.agentfile/v0.1\nAGENT big-agent\nCMD strands run --agent big-agent\nAUDIT all\nTIMEOUT 600\n",
    );
    let mut i = 0;
    while s.len() < 1 << 20 {
        s.push_str(&format!(
            "TOOL utcp:tool_{i}\nURL https://api{i}.example.com/v1\nMOUNT /data/{i} ro\n\
             CRED key_{i} env:KEY_{i} host:api{i}.example.com inject:header\n\
             ALLOW invoke utcp:tool_{i}\nRATELIMIT utcp:tool_{i} 10/min   # per tool\n\
             LIMIT calls_{i} 100\n# review note for tool {i}\nSOP sop_{i}\n## Steps\n- You MUST check item {i}.\nEND\n"
        ));
        if policy_every > 0 && i % policy_every == 0 {
            s.push_str(&format!(
                "POLICY\npermit(\n  principal == AgentRC::Agent::\"big-agent\",\n  action == AgentRC::Action::\"tool.invoke\",\n  resource == AgentRC::Tool::\"tool_{i}\"\n) when {{ context.path like \"/data/{i}/*\" }};\nEND\n"
            ));
        }
        i += 1;
    }
    s
}

#[divan::bench]
fn parse_1mb(bencher: Bencher) {
    let text = agentfile(0);
    bencher.bench(|| parse_agentfile(black_box(&text), &ParseOptions::default()));
}

#[divan::bench]
fn parse_and_lint_1mb(bencher: Bencher) {
    let text = agentfile(0);
    bencher.bench(|| lint(&parse_agentfile(black_box(&text), &ParseOptions::default())));
}

#[divan::bench]
fn parse_and_lint_1mb_with_policy_blocks(bencher: Bencher) {
    let text = agentfile(64);
    bencher.bench(|| lint(&parse_agentfile(black_box(&text), &ParseOptions::default())));
}

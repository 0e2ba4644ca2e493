use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::{Lease, LeaseConstraints, LeaseGuard, SystemClock};

fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("leasekit-mcp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::canonicalize(&d).unwrap()
}

fn session_with(lease: Value, opts: McpOptions) -> Session {
    let lease = Lease::from_value(&lease).unwrap();
    let g = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    Session::new(
        McpGuard::new(g, ArgMap::builtin(), opts),
        None,
        None,
        Arc::new(SystemClock),
    )
}

fn fs_session(root: &str) -> Session {
    session_with(
        json!({
            "tool.call": ["mcp:fs.read_text_file", "mcp:fs.write_file", "mcp:fs.read_multiple_files",
                          "mcp:fs.echo", "mcp:fs.list_allowed_directories"],
            "fs.read": [root, format!("{root}/**")],
            "fs.write": [format!("{root}/out/**")],
        }),
        McpOptions::new("fs"),
    )
}

fn call(id: Value, tool: &str, args: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":args}})
        .to_string()
}

fn denied(out: &Output) -> bool {
    out.to_server.is_empty()
        && out.to_client.len() == 1
        && serde_json::from_str::<Value>(&out.to_client[0]).unwrap()["result"]["isError"] == true
}

fn rpc_error(out: &Output) -> i64 {
    assert!(out.to_server.is_empty(), "{out:?}");
    let v: Value = serde_json::from_str(&out.to_client[0]).unwrap();
    v["error"]["code"].as_i64().unwrap()
}

#[test]
fn an_allowed_read_is_forwarded_with_the_canonical_path() {
    let d = tmpdir("allow");
    let root = d.to_str().unwrap();
    let mut s = fs_session(root);
    let out = s.from_client(&call(
        json!(1),
        "read_text_file",
        json!({"path": format!("{root}//a/./b/../c")}),
    ));
    assert_eq!(out.to_client, Vec::<String>::new());
    let fwd: Value = serde_json::from_str(&out.to_server[0]).unwrap();
    assert_eq!(fwd["params"]["arguments"]["path"], format!("{root}/a/c"));
    assert_eq!(s.pending(), 1);
}

#[test]
fn traversal_sibling_prefix_encoded_dots_and_read_only_writes_are_denied() {
    let d = tmpdir("deny");
    let root = d.to_str().unwrap();
    let mut s = fs_session(root);
    for (i, path) in [
        format!("{root}/../etc/passwd"),
        format!("{root}x/secret"),
        format!("{root}/%2e%2e/etc/passwd"),
        format!("{root}/%2E%2e%2Fetc"),
        "relative/path".to_string(),
        "~/secret".to_string(),
    ]
    .iter()
    .enumerate()
    {
        let out = s.from_client(&call(json!(i), "read_text_file", json!({"path": path})));
        assert!(denied(&out), "{path}: {out:?}");
    }
    let out = s.from_client(&call(
        json!(9),
        "write_file",
        json!({"path": format!("{root}/x"), "content": "x"}),
    ));
    assert!(denied(&out));
    assert!(out.to_client[0].contains("PERMISSION_DENIED"), "{out:?}");
    assert_eq!(s.pending(), 0);
}

#[test]
fn a_symlink_out_of_the_mount_is_denied_and_one_inside_is_resolved() {
    let d = tmpdir("link");
    let root = d.to_str().unwrap();
    let outside = tmpdir("link-outside");
    std::fs::write(outside.join("secret"), "s").unwrap();
    std::os::unix::fs::symlink(&outside, d.join("escape")).unwrap();
    std::fs::create_dir_all(d.join("real")).unwrap();
    std::os::unix::fs::symlink(d.join("real"), d.join("alias")).unwrap();
    std::os::unix::fs::symlink("/nonexistent-target-dir", d.join("dangling")).unwrap();
    let mut s = fs_session(root);
    let out = s.from_client(&call(
        json!(1),
        "read_text_file",
        json!({"path": format!("{root}/escape/secret")}),
    ));
    assert!(denied(&out), "{out:?}");
    let out = s.from_client(&call(
        json!(2),
        "read_text_file",
        json!({"path": format!("{root}/dangling/new")}),
    ));
    assert!(denied(&out), "{out:?}");
    let out = s.from_client(&call(
        json!(3),
        "read_text_file",
        json!({"path": format!("{root}/alias/f")}),
    ));
    let fwd: Value = serde_json::from_str(&out.to_server[0]).unwrap();
    assert_eq!(fwd["params"]["arguments"]["path"], format!("{root}/real/f"));
}

#[test]
fn every_item_of_a_list_argument_is_checked() {
    let d = tmpdir("list");
    let root = d.to_str().unwrap();
    let mut s = fs_session(root);
    let out = s.from_client(&call(
        json!(1),
        "read_multiple_files",
        json!({"paths": [format!("{root}/a"), "/etc/passwd"]}),
    ));
    assert!(denied(&out));
    let out = s.from_client(&call(
        json!(2),
        "read_multiple_files",
        json!({"paths": [format!("{root}/a"), 7]}),
    ));
    assert!(denied(&out));
    let out = s.from_client(&call(
        json!(3),
        "read_multiple_files",
        json!({"paths": format!("{root}/a")}),
    ));
    assert!(denied(&out));
}

#[test]
fn tools_outside_the_lease_and_odd_names_are_denied() {
    let mut s = fs_session("/srv");
    for name in [
        "delete_everything",
        "read%5Ftext_file",
        "read_text_file ",
        "",
        "rеad_text_file",
    ] {
        let out = s.from_client(&call(json!(1), name, json!({"path": "/srv/a"})));
        assert!(denied(&out), "{name:?}: {out:?}");
    }
    // A mapped tool missing its path argument is refused, not forwarded.
    let out = s.from_client(&call(json!(2), "read_text_file", json!({})));
    assert!(denied(&out));
}

#[test]
fn unmapped_tools_pass_by_name_unless_strict() {
    let mut s = fs_session("/srv");
    let out = s.from_client(&call(json!(1), "echo", json!({"path": "/etc/passwd"})));
    assert_eq!(out.to_server.len(), 1);
    let mut o = McpOptions::new("fs");
    o.strict = true;
    let mut s = session_with(json!({"tool.call": ["mcp:fs.*"]}), o);
    let out = s.from_client(&call(json!(1), "echo", json!({})));
    assert!(denied(&out));
    let out = s.from_client(&call(json!(2), "list_allowed_directories", json!({})));
    assert_eq!(out.to_server.len(), 1);
}

#[test]
fn monitor_forwards_what_it_would_deny_and_logs_it() {
    let mut o = McpOptions::new("fs");
    o.monitor = true;
    let mut s = session_with(
        json!({"tool.call": ["mcp:fs.read_text_file"], "fs.read": ["/srv/**"]}),
        o,
    );
    let out = s.from_client(&call(
        json!(1),
        "read_text_file",
        json!({"path": "/etc/passwd"}),
    ));
    assert_eq!(out.to_server.len(), 1);
    assert!(out.log[0].starts_with("monitor: would deny"));
}

#[test]
fn malformed_batches_and_id_games_get_json_rpc_errors() {
    let mut s = fs_session("/srv");
    assert_eq!(rpc_error(&s.from_client("{not json")), jsonrpc::PARSE_ERROR);
    assert_eq!(rpc_error(&s.from_client("")), jsonrpc::PARSE_ERROR);
    let batch = format!(
        "[{}]",
        call(json!(1), "read_text_file", json!({"path": "/srv/a"}))
    );
    assert_eq!(rpc_error(&s.from_client(&batch)), jsonrpc::INVALID_REQUEST);
    assert_eq!(rpc_error(&s.from_client("42")), jsonrpc::INVALID_REQUEST);
    assert_eq!(
        rpc_error(&s.from_client(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)),
        jsonrpc::INVALID_REQUEST
    );
    for id in ["null", "1.5", "true", "{}", "[1]"] {
        let m = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert_eq!(
            rpc_error(&s.from_client(&m)),
            jsonrpc::INVALID_REQUEST,
            "{id}"
        );
    }
    assert_eq!(
        rpc_error(&s.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#)),
        jsonrpc::INVALID_PARAMS
    );
    assert_eq!(rpc_error(&s.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":"x"}}"#)), jsonrpc::INVALID_PARAMS);
    assert_eq!(
        rpc_error(&s.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"Tools/Call","params":{}}"#)),
        jsonrpc::METHOD_NOT_FOUND
    );
    assert_eq!(
        rpc_error(
            &s.from_client("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\\ud800\"}")
        ),
        jsonrpc::PARSE_ERROR
    );
    // A tools/call notification is never forwarded (and gets no answer).
    let out = s.from_client(r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/etc/passwd"}}}"#);
    assert!(out.to_server.is_empty() && out.to_client.is_empty());
}

#[test]
fn a_duplicated_key_is_decided_and_forwarded_as_one_value() {
    let mut s = fs_session("/srv");
    let m = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/a","path":"/etc/passwd"}}}"#;
    let out = s.from_client(m);
    // Whatever value the parser kept is the one decided and the only one forwarded.
    assert!(denied(&out) || !out.to_server[0].contains("/srv/a"));
    assert!(out.to_server.iter().all(|l| !l.contains("/etc/passwd")));
}

#[test]
fn ids_in_use_are_refused_and_cancellation_frees_them() {
    let mut s = fs_session("/srv");
    let out = s.from_client(&call(json!("a"), "echo", json!({})));
    assert_eq!(out.to_server.len(), 1);
    assert_eq!(
        rpc_error(&s.from_client(&call(json!("a"), "echo", json!({})))),
        jsonrpc::INVALID_REQUEST
    );
    // "1" and 1 are different ids.
    assert_eq!(
        s.from_client(&call(json!(1), "echo", json!({})))
            .to_server
            .len(),
        1
    );
    assert_eq!(
        s.from_client(&call(json!("1"), "echo", json!({})))
            .to_server
            .len(),
        1
    );
    let out = s.from_client(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
    );
    assert_eq!(out.to_server.len(), 1);
    assert_eq!(s.pending(), 2);
    assert_eq!(
        s.from_client(&call(json!("a"), "echo", json!({})))
            .to_server
            .len(),
        1
    );
}

#[test]
fn pending_requests_are_bounded() {
    let mut s = fs_session("/srv");
    for i in 0..MAX_PENDING {
        assert_eq!(
            s.from_client(&format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#))
                .to_server
                .len(),
            1
        );
    }
    assert_eq!(
        rpc_error(&s.from_client(r#"{"jsonrpc":"2.0","id":"x","method":"ping"}"#)),
        jsonrpc::INVALID_REQUEST
    );
    let out = s.server_exited();
    assert_eq!(out.to_client.len(), MAX_PENDING);
    assert_eq!(s.pending(), 0);
}

#[test]
fn tools_list_answers_are_filtered() {
    let mut s = fs_session("/srv");
    s.from_client(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
    let answer = json!({"jsonrpc":"2.0","id":7,"result":{"tools":[
        {"name":"read_text_file"},{"name":"write_file"},{"name":"delete_everything"},{"name":5},{}]}});
    let out = s.from_server(&answer.to_string());
    let v: Value = serde_json::from_str(&out.to_client[0]).unwrap();
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_text_file", "write_file"]);
    // An answer with the same id later is not filtered as a list again, but passes.
    assert_eq!(s.from_server(&answer.to_string()).to_client.len(), 1);
}

#[test]
fn a_server_exit_answers_every_call_in_flight() {
    let mut s = fs_session("/srv");
    s.from_client(&call(json!(3), "echo", json!({})));
    let out = s.server_exited();
    let v: Value = serde_json::from_str(&out.to_client[0]).unwrap();
    assert_eq!(v["id"], 3);
    assert_eq!(v["error"]["code"], jsonrpc::INTERNAL_ERROR);
}

#[test]
fn resources_read_checks_file_uris() {
    let mut s = fs_session("/srv");
    let r = |uri: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"{uri}"}}}}"#
        )
    };
    assert!(s.from_client(&r("file:///etc/passwd")).to_server.is_empty());
    assert!(
        s.from_client(&r("file:///srv/%2e%2e/etc/passwd"))
            .to_server
            .is_empty()
    );
    let out = s.from_client(&r("file:///srv/a/../b"));
    assert!(out.to_server[0].contains("file:///srv/b"), "{out:?}");
}

#[test]
fn the_audit_chain_records_decisions_and_verifies() {
    let d = tmpdir("audit");
    let path = d.join("mcp-audit.jsonl");
    for round in 0..2 {
        let lease = Lease::from_value(
            &json!({"tool.call": ["mcp:fs.read_text_file"], "fs.read": ["/srv/**"]}),
        )
        .unwrap();
        let g = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
        let log = AuditLog::open(&path).unwrap();
        let mut s = Session::new(
            McpGuard::new(g, ArgMap::builtin(), McpOptions::new("fs")),
            None,
            Some(log),
            Arc::new(SystemClock),
        );
        s.from_client(&call(json!(1), "read_text_file", json!({"path": "/srv/a"})));
        s.from_client(&call(
            json!(2),
            "read_text_file",
            json!({"path": "/etc/passwd"}),
        ));
        s.from_server(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#);
        s.from_client("garbage");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4 * (round + 1));
        assert!(crate::governor::audit::verify_audit(lines.iter().copied()).ok);
        assert!(
            lines[1].contains(r#""decision":"deny""#) && lines[1].contains(r#""rule":"argument""#)
        );
    }
    // A tampered chain is refused, not extended.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("/srv/a", "/srv/b");
    std::fs::write(&path, text).unwrap();
    assert!(AuditLog::open(&path).is_err());
}

#[test]
fn user_maps_parse_and_reject_unknown_capabilities() {
    let m = ArgMap::from_json(r#"{"tools":{"copy":[{"argument":"from","capability":"fs.read"},{"argument":"to","capability":"fs.write","optional":true}]}}"#).unwrap();
    assert_eq!(m.rules("copy").unwrap().len(), 2);
    assert!(
        ArgMap::from_json(r#"{"tools":{"x":[{"argument":"a","capability":"tool.call"}]}}"#)
            .is_err()
    );
    assert!(
        ArgMap::from_json(r#"{"tools":{"x":[{"argument":"a","capability":"fs.read","extra":1}]}}"#)
            .is_err()
    );
    assert!(ArgMap::from_json("[]").is_err());
}

fn arg_value() -> impl Strategy<Value = Value> {
    let seg = prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("".to_string()),
        Just("srv".to_string()),
        Just("srvx".to_string()),
        Just("etc".to_string()),
        Just("%2e%2e".to_string()),
        Just("a".to_string()),
        Just("out".to_string()),
        "[a-z.%/]{0,4}",
    ];
    let path = (any::<bool>(), prop::collection::vec(seg, 0..6))
        .prop_map(|(abs, v)| format!("{}{}", if abs { "/" } else { "" }, v.join("/")));
    let url = prop_oneof![
        Just("https://api.example.com/v1/../x"),
        Just("https://evil.example/"),
        Just("HTTPS://API.EXAMPLE.COM:443/a/%2e%2e/b"),
        Just("http://api.example.com@evil/")
    ]
    .prop_map(|s| s.to_string());
    prop_oneof![
        path.clone().prop_map(Value::String),
        prop::collection::vec(path, 0..3)
            .prop_map(|v| Value::Array(v.into_iter().map(Value::String).collect())),
        url.prop_map(Value::String),
        Just(json!(5)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Nothing the guard forwards would be denied by `authorize` on the forwarded targets.
    #[test]
    fn forwarded_targets_are_authorized(
        caps in prop::collection::vec(prop_oneof![Just("fs.read"), Just("fs.write"), Just("net.fetch")], 1..3),
        lists in prop::collection::vec(any::<bool>(), 3),
        vals in prop::collection::vec(arg_value(), 3),
    ) {
        let lease_json = json!({"tool.call": ["mcp:s.t"], "fs.read": ["/srv/**"], "fs.write": ["/srv/out/**"],
                                "net.fetch": ["https://api.example.com/**"]});
        let lease = Lease::from_value(&lease_json).unwrap();
        let rules: Vec<Value> = caps.iter().enumerate().map(|(i, c)| json!({"argument": format!("a{i}"), "capability": c, "list": lists[i]})).collect();
        let map = ArgMap::from_json(&json!({"tools": {"t": rules}}).to_string()).unwrap();
        let mut o = McpOptions::new("s");
        o.resolve_symlinks = false;
        let g = LeaseGuard::new(lease.clone(), LeaseConstraints::none(), Arc::new(SystemClock));
        let mut s = Session::new(McpGuard::new(g, map, o), None, None, Arc::new(SystemClock));
        let mut args = serde_json::Map::new();
        for (i, v) in vals.iter().enumerate() { args.insert(format!("a{i}"), v.clone()); }
        let out = s.from_client(&call(json!(1), "t", Value::Object(args)));
        let check = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
        for fwd in &out.to_server {
            let v: Value = serde_json::from_str(fwd).unwrap();
            let a = &v["params"]["arguments"];
            for (i, c) in caps.iter().enumerate() {
                let items: Vec<&Value> = match &a[format!("a{i}")] { Value::Array(x) => x.iter().collect(), x => vec![x] };
                for item in items {
                    let t = item.as_str().unwrap();
                    let r = check.authorize(c, t);
                    prop_assert_eq!(r.as_deref(), Ok(t));
                }
            }
        }
    }
}

#[test]
fn each_call_is_decided_by_the_name_called_not_by_an_earlier_list() {
    let mut s = fs_session("/srv");
    s.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    // The server lists a tool under an allowed name; the call uses another name.
    s.from_server(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_text_file"}]}}"#);
    let out = s.from_client(&call(
        json!(2),
        "read_text_file_v2",
        json!({"path": "/srv/a"}),
    ));
    assert!(denied(&out));
}

#[test]
fn deeply_nested_input_is_a_parse_error_not_a_crash() {
    let mut s = fs_session("/srv");
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(rpc_error(&s.from_client(&deep)), jsonrpc::PARSE_ERROR);
}

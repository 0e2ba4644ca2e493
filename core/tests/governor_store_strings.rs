//! `Governor::open` reads a store string as every binding's `Governor.open` does: `memory` and
//! `:memory:` are in memory, `sqlite:PATH` is the SQLite file at PATH, a PostgreSQL URL is a
//! fleet's database, anything else a SQLite path. A keyword is never taken for a file name.

use leasekit::governor::{Governor, GovernorOptions, Policy};

fn open(store: &str) -> Governor {
    Governor::open(store, Policy::default_policy(), GovernorOptions::default())
        .unwrap_or_else(|e| panic!("open {store:?}: {e}"))
}

// One test: it changes the working directory, which every test of a binary shares.
#[test]
fn store_strings_mean_what_the_bindings_mean() {
    let dir = std::env::temp_dir().join(format!("lk-store-strings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_current_dir(&dir).unwrap();

    for keyword in ["memory", ":memory:"] {
        let g = open(keyword);
        assert!(
            !g.status().unwrap().durable_state_enabled,
            "{keyword}: not in memory"
        );
        assert!(
            !dir.join(keyword).exists(),
            "{keyword}: a file of that name was created"
        );
    }

    let g = open("sqlite:gov.db");
    assert!(g.status().unwrap().durable_state_enabled);
    assert!(
        dir.join("gov.db").exists(),
        "sqlite:gov.db did not open gov.db"
    );
    assert!(
        !dir.join("sqlite:gov.db").exists(),
        "the sqlite: prefix became part of a file name"
    );
    drop(g);

    let g = open("plain.db");
    assert!(g.status().unwrap().durable_state_enabled);
    assert!(dir.join("plain.db").exists());
    drop(g);

    assert!(Governor::open("", Policy::default_policy(), GovernorOptions::default()).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

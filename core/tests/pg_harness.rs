//! The throwaway PostgreSQL server of `pg/mod.rs`: it starts, answers, survives a crash
//! restart with committed data intact, and is gone after drop.

mod pg;

use pg::TempPostgres;

#[test]
fn server_starts_answers_restarts_and_stops() {
    let pg = TempPostgres::start();
    let url = pg.fresh_db("harness");
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect by URL");
    let v: String = c.query_one("SHOW server_version", &[]).unwrap().get(0);
    assert!(v.starts_with(|ch: char| ch.is_ascii_digit()), "version {v}");
    let fsync: String = c.query_one("SHOW fsync", &[]).unwrap().get(0);
    assert_eq!(fsync, "on", "the tests measure durable commits");
    c.batch_execute("CREATE TABLE t (x int); INSERT INTO t VALUES (42)")
        .unwrap();
    drop(c);
    // A crash (immediate stop) and a start: the committed row survives.
    pg.restart();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("reconnect");
    let x: i32 = c.query_one("SELECT x FROM t", &[]).unwrap().get(0);
    assert_eq!(x, 42);
    drop(c);
    let dir = pg.socket_dir().to_path_buf();
    drop(pg);
    assert!(!dir.exists(), "server directory removed");
}

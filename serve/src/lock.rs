//! Lock files: one daemon per state directory and per socket. The lock is an exclusive
//! `flock` held for the daemon's lifetime; the kernel drops it when the process dies (even by
//! `kill -9`), so a stale lock file never blocks a restart. The file is opened without
//! following a symbolic link and must be the daemon's own regular file (SEMANTICS 13.16), so
//! a link planted in its place is refused, never truncated through.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::files;

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct LockFile {
    path: PathBuf,
    _file: File,
}

impl LockFile {
    /// Takes the lock at `path` (created 0600 if absent) and writes our pid into it. `what`
    /// names the protected thing in the error, e.g. `state directory /x`.
    pub fn acquire(path: &Path, what: &str) -> Result<LockFile, String> {
        let mut file = files::open_private(path, "lock file")?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() {
                    "another process".to_string()
                } else {
                    format!("another leasekit daemon (pid {holder})")
                };
                return Err(format!(
                    "{who} is already serving {what} (lock file {} is held); stop it first or \
                     choose another --socket/--state",
                    path.display()
                ));
            }
            Err(TryLockError::Error(e)) => {
                return Err(format!("cannot lock {}: {e}", path.display()));
            }
        }
        file.set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)).map(|_| ()))
            .and_then(|_| writeln!(file, "{}", std::process::id()))
            .and_then(|_| file.flush())
            .map_err(|e| format!("cannot write lock file {}: {e}", path.display()))?;
        Ok(LockFile {
            path: path.to_path_buf(),
            _file: file,
        })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_is_refused_until_the_first_drops() {
        let dir = std::env::temp_dir().join(format!("lk-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.lock");
        let a = LockFile::acquire(&p, "state directory /x").unwrap();
        let e = LockFile::acquire(&p, "state directory /x").unwrap_err();
        assert!(e.contains("already serving state directory /x"), "{e}");
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        drop(a);
        LockFile::acquire(&p, "state directory /x").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

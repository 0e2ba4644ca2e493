//! The daemon's files under hostile local users (SEMANTICS 13.16 "Files"): its state and
//! socket directories must be its own (or root's) and not writable by others unless sticky,
//! and it never follows a symbolic link to its lock files, socket or store.
//!
//! Directories are checked where they end up (a symlinked `/var/run` is fine; what it points
//! to must pass). Files inside them are opened with `O_NOFOLLOW` or checked with `lstat`, so a
//! link planted in a shared directory such as `/tmp` is refused rather than followed.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// The effective uid of this process.
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// An owner the daemon trusts: itself or root.
fn trusted_owner(uid: u32) -> bool {
    uid == euid() || uid == 0
}

/// Checks that the directory `path` (`what` names it in errors, e.g. `state directory`) is
/// owned by the daemon's uid or root and is not writable by group or others unless it has
/// the sticky bit.
pub fn check_dir(path: &Path, what: &str) -> Result<(), String> {
    let meta =
        fs::metadata(path).map_err(|e| format!("cannot inspect {what} {}: {e}", path.display()))?;
    if !meta.is_dir() {
        return Err(format!("{what} {} is not a directory", path.display()));
    }
    if !trusted_owner(meta.uid()) {
        return Err(format!(
            "{what} {} is owned by uid {}; the daemon (uid {}) uses only a directory owned by \
             its own uid or root, so no other user can replace its files",
            path.display(),
            meta.uid(),
            euid()
        ));
    }
    let mode = meta.mode();
    if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        let who = match (mode & 0o020 != 0, mode & 0o002 != 0) {
            (true, true) => "group and others",
            (true, false) => "its group",
            _ => "others",
        };
        return Err(format!(
            "{what} {} is writable by {who} (mode {:o}) without the sticky bit, so another \
             user could replace its files; run `chmod go-w` on it or choose another directory",
            path.display(),
            mode & 0o7777
        ));
    }
    Ok(())
}

/// Opens (creating 0600 if absent) the daemon's own file `path` for reading and writing
/// without following a symbolic link, and checks it is a regular file with one link, owned
/// by the daemon's uid or root. `what` names it in errors (e.g. `lock file`).
pub fn open_private(path: &Path, what: &str) -> Result<File, String> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        // O_NONBLOCK: a FIFO planted here must not hang the start (it is refused below).
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => symlink_refused(path, what),
            _ => format!("cannot open {what} {}: {e}", path.display()),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot inspect {what} {}: {e}", path.display()))?;
    check_own_file(path, what, &meta)?;
    Ok(file)
}

/// Checks that `path`, when it exists, is not a symbolic link and is a regular file with one
/// link owned by the daemon's uid or root (the store's files, before SQLite opens them).
pub fn check_existing_file(path: &Path, what: &str) -> Result<(), String> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(symlink_refused(path, what)),
        Ok(meta) => check_own_file(path, what, &meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot inspect {what} {}: {e}", path.display())),
    }
}

fn check_own_file(path: &Path, what: &str, meta: &Metadata) -> Result<(), String> {
    if !meta.is_file() {
        return Err(format!(
            "{what} {} is not a regular file; refusing to use it",
            path.display()
        ));
    }
    if !trusted_owner(meta.uid()) {
        return Err(format!(
            "{what} {} is owned by uid {}, not by the daemon's uid {} or root; refusing to \
             use it",
            path.display(),
            meta.uid(),
            euid()
        ));
    }
    if meta.nlink() != 1 {
        return Err(format!(
            "{what} {} has {} hard links; refusing to use a file linked elsewhere",
            path.display(),
            meta.nlink()
        ));
    }
    Ok(())
}

fn symlink_refused(path: &Path, what: &str) -> String {
    format!(
        "{what} {} is a symbolic link; the daemon never follows one to its own files (remove \
         it)",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn temp(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("lk-files-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o700)).unwrap();
        d
    }

    #[test]
    fn directory_modes() {
        let d = temp("dir");
        check_dir(&d, "state directory").unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o770)).unwrap();
        let e = check_dir(&d, "state directory").unwrap_err();
        assert!(
            e.contains("writable by its group") && e.contains("770"),
            "{e}"
        );
        fs::set_permissions(&d, fs::Permissions::from_mode(0o1777)).unwrap();
        check_dir(&d, "socket directory").unwrap();
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn links_are_refused() {
        let d = temp("link");
        let victim = d.join("victim");
        fs::write(&victim, "keep").unwrap();
        let link = d.join("x.lock");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = open_private(&link, "lock file").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        let e = check_existing_file(&link, "store file").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        let hard = d.join("h.lock");
        fs::hard_link(&victim, &hard).unwrap();
        let e = open_private(&hard, "lock file").unwrap_err();
        assert!(e.contains("hard links"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        check_existing_file(&d.join("absent"), "store file").unwrap();
        open_private(&d.join("fresh.lock"), "lock file").unwrap();
        fs::remove_dir_all(&d).unwrap();
    }
}

//! Atomic output files: every file warpsmith writes goes to a temporary file beside its target and is
//! renamed over it only when complete, so a failed run never leaves a half-written output.
//!
//! Only regular files are replaced that way. An output that already exists as something else — a
//! device (`-o /dev/null`, `-o /dev/stdout`), a FIFO, a socket — is written in place: renaming over
//! it would replace the device node with a regular file (run as root, `-o /dev/null` used to turn the
//! machine's `/dev/null` into a file that every later reader saw the bytes of). A symbolic link is
//! followed and its target replaced, so the link survives.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `contents` to `path`: atomically (temporary file in the same directory, then rename) for a
/// new or regular file, in place for an existing device, FIFO or socket.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
            return f.write_all(contents);
        }
        _ => {}
    }
    let path = resolve_symlink(path)?;
    replace_regular(&path, contents)
}

/// The file a symbolic link points at (followed to the end), or `path` itself when it is not a link.
/// A dangling link resolves to its final target, which is then created.
fn resolve_symlink(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Temporary file beside `path`, then rename over it.
fn replace_regular(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "output path has no file name")
    })?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces() {
        let dir = std::env::temp_dir().join(format!("ws-fsutil-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary file may remain");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keeps_devices_and_links() {
        let dir = std::env::temp_dir().join(format!("ws-fsutil-dev-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // /dev/null stays a character device.
        write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null was replaced by a regular file");
        assert_eq!(std::fs::read("/dev/null").unwrap(), b"");
        // A link's target is replaced; the link stays a link.
        let target = dir.join("target.ptx");
        std::fs::write(&target, b"old").unwrap();
        let link = dir.join("link.ptx");
        std::os::unix::fs::symlink("target.ptx", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failure_leaves_nothing() {
        let p = Path::new("/nonexistent-dir-warpsmith/x.ptx");
        assert!(write_atomic(p, b"x").is_err());
    }
}

//! The launch fact a PTX file can carry for the drop-in (issue 12: "where the dynamic size is
//! unknown, find it … a Triton-side hook if Triton offers one at assembly time"): a comment line
//! `// warpsmith-dynamic-smem: BYTES` after the file's last statement gives the dynamic shared
//! memory its kernels are launched with, as `WARPSMITH_SPILL_DYNAMIC_SMEM` does for a whole
//! process. `python/warpsmith_triton.py` appends it to the PTX Triton hands to ptxas, from the
//! kernel's own metadata, so each kernel of a Triton process gets its own size. NVIDIA's ptxas
//! reads it as a comment, and at the end it moves no line: ptxas's line information counts PTX
//! lines, and a line added at the top changes the cubin's bytes (ptxas 13.4, `-lineinfo`).
//!
//! A second line, `// warpsmith-grow-dynamic: FILE`, says the caller can launch with more dynamic
//! shared memory than that: the post-ptxas stage may then put a frame it cannot fit in the static
//! area at the end of a grown dynamic area (`demote --grow-dynamic`), and writes the bytes each
//! kernel's launch must add to FILE. The Triton hook adds them to the kernel's metadata.

/// The comment that gives the dynamic size, followed by the byte count.
pub const DYNAMIC_SMEM_MARKER: &str = "// warpsmith-dynamic-smem:";

/// The comment by which the caller lets the launch's dynamic size grow, followed by the file the
/// post-ptxas stage writes the added bytes to (`{"kernel": bytes, …}`, JSON).
pub const GROW_DYNAMIC_MARKER: &str = "// warpsmith-grow-dynamic:";

/// The variable the passes and the post-ptxas stage read the dynamic size from.
const DYNAMIC_SMEM_VAR: &str = "WARPSMITH_SPILL_DYNAMIC_SMEM";

/// The variable the post-ptxas stage reads the grow report's path from (docs/ptxas-wrapper.md).
pub const GROW_REPORT_VAR: &str = "WARPSMITH_DEMOTE_GROW_REPORT";

/// The value of `text`'s `marker` line, read among the blank and comment lines after the last
/// statement and checked by `parse`; `Ok(None)` without one. A value `parse` refuses, or two
/// different ones, is an error that names the line.
fn trailing_marker<T: PartialEq + std::fmt::Display>(
    text: &str,
    marker: &str,
    parse: impl Fn(&str) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, String> {
    let mut found: Option<T> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate().rev() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(marker) {
            let value = parse(rest.trim()).ok_or_else(|| {
                format!(
                    "line {}: `{line}`: expected {expected} after `{marker}`",
                    n + 1
                )
            })?;
            if let Some(later) = found.as_ref().filter(|f| **f != value) {
                return Err(format!(
                    "line {}: a second value ({value} before {later})",
                    n + 1
                ));
            }
            found = Some(value);
        } else if !(line.is_empty() || line.starts_with("//")) {
            break;
        }
    }
    Ok(found)
}

/// The byte count of `text`'s [`DYNAMIC_SMEM_MARKER`] line ([`trailing_marker`]).
pub fn dynamic_smem_marker(text: &str) -> Result<Option<u32>, String> {
    trailing_marker(
        text,
        DYNAMIC_SMEM_MARKER,
        |v| v.parse().ok(),
        "a byte count",
    )
}

/// The report path of `text`'s [`GROW_DYNAMIC_MARKER`] line ([`trailing_marker`]).
pub fn grow_dynamic_marker(text: &str) -> Result<Option<String>, String> {
    trailing_marker(
        text,
        GROW_DYNAMIC_MARKER,
        |v| (!v.is_empty()).then(|| v.to_string()),
        "a file name",
    )
}

/// One input as the drop-in read it: its name for messages and its text (`None`: unreadable,
/// or not UTF-8).
pub type InputText<'a> = (String, Option<&'a str>);

/// The value `read` finds in this run's inputs: every input's when all carry the same one, else
/// none (an input without one keeps the process's setting, so a mixed run takes none). `what`
/// names the value in warnings. Problems are returned as warnings.
fn inputs_value<T: PartialEq + std::fmt::Debug>(
    texts: &[InputText],
    read: impl Fn(&str) -> Result<Option<T>, String>,
    what: &str,
) -> (Option<T>, Vec<String>) {
    let mut values: Vec<T> = Vec::new();
    for (name, text) in texts {
        let Some(text) = text else {
            return (None, Vec::new());
        };
        match read(text) {
            Ok(Some(v)) => values.push(v),
            Ok(None) => return (None, Vec::new()),
            Err(why) => {
                return (
                    None,
                    vec![format!("{name}: {why}; the {what} is not taken from it")],
                )
            }
        }
    }
    values.dedup();
    if values.len() > 1 {
        return (
            None,
            vec![format!(
                "the inputs give different {what}s ({values:?}): none is used"
            )],
        );
    }
    (values.pop(), Vec::new())
}

/// The dynamic size this run's inputs give ([`inputs_value`]).
fn inputs_dynamic_smem(texts: &[InputText]) -> (Option<u32>, Vec<String>) {
    inputs_value(texts, dynamic_smem_marker, "dynamic shared-memory size")
}

/// Reads the inputs' markers. Where they give one size, sets `WARPSMITH_SPILL_DYNAMIC_SMEM` in
/// this process for every pass of the run (and the post-ptxas stage); the file's size wins over
/// the variable's. Where they give one grow report, sets [`GROW_REPORT_VAR`] for the post-ptxas
/// stage. Returns the warnings to print.
pub fn apply_launch_markers(texts: &[InputText]) -> Vec<String> {
    let (size, mut warnings) = inputs_dynamic_smem(texts);
    if let Some(n) = size {
        let given = std::env::var(DYNAMIC_SMEM_VAR).ok();
        if given.as_deref().is_some_and(|g| g.trim() != n.to_string()) {
            log::info!(
                "the input gives {n} B of dynamic shared memory ({DYNAMIC_SMEM_MARKER}); \
                 {DYNAMIC_SMEM_VAR}={} is not used",
                given.unwrap_or_default()
            );
        }
        log::debug!("dynamic shared memory from the input: {n} B");
        std::env::set_var(DYNAMIC_SMEM_VAR, n.to_string());
    }
    let (report, grow_warnings) = inputs_value(texts, grow_dynamic_marker, "grow report");
    warnings.extend(grow_warnings);
    if let Some(path) = report {
        log::debug!("the launch's dynamic size may grow; added bytes go to {path}");
        std::env::set_var(GROW_REPORT_VAR, path);
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_is_read_after_the_last_statement_only() {
        let ptx = ".version 8.7\n}\n\t// .globl k\n// warpsmith-dynamic-smem: 49152\n\n";
        assert_eq!(dynamic_smem_marker(ptx), Ok(Some(49152)));
        let early = "// warpsmith-dynamic-smem: 49152\n.version 8.7\n";
        assert_eq!(dynamic_smem_marker(early), Ok(None));
        assert_eq!(dynamic_smem_marker(".version 8.7\n"), Ok(None));
    }

    #[test]
    fn a_bad_or_contradicted_marker_names_its_line() {
        let bad = ".version 8.7\n// warpsmith-dynamic-smem: lots\n";
        let why = dynamic_smem_marker(bad).unwrap_err();
        assert!(why.starts_with("line 2:"), "{why}");
        let two =
            ".version 8.7\n// warpsmith-dynamic-smem: 1024\n// warpsmith-dynamic-smem: 2048\n";
        let why = dynamic_smem_marker(two).unwrap_err();
        assert!(
            why.starts_with("line 2:") && why.contains("1024 before 2048"),
            "{why}"
        );
        let same =
            ".version 8.7\n// warpsmith-dynamic-smem: 1024\n// warpsmith-dynamic-smem: 1024\n";
        assert_eq!(dynamic_smem_marker(same), Ok(Some(1024)));
    }

    #[test]
    fn every_input_must_give_the_same_size() {
        let (t512, t1024) = (
            format!(".version 8.7\n{DYNAMIC_SMEM_MARKER} 512\n"),
            format!(".version 8.7\n{DYNAMIC_SMEM_MARKER} 1024\n"),
        );
        let with = |n: u32| {
            Some(if n == 512 {
                t512.as_str()
            } else {
                t1024.as_str()
            })
        };
        fn input(t: Option<&str>) -> InputText<'_> {
            ("k.ptx".to_string(), t)
        }
        assert_eq!(inputs_dynamic_smem(&[input(with(512))]).0, Some(512));
        assert_eq!(
            inputs_dynamic_smem(&[input(with(512)), input(with(512))]).0,
            Some(512)
        );
        let (none, warnings) = inputs_dynamic_smem(&[input(with(512)), input(with(1024))]);
        assert_eq!(none, None);
        assert_eq!(warnings.len(), 1);
        let mixed = [input(with(512)), input(Some(".version 8.7\n"))];
        assert_eq!(inputs_dynamic_smem(&mixed), (None, Vec::new()));
        assert_eq!(inputs_dynamic_smem(&[input(None)]), (None, Vec::new()));
    }

    #[test]
    fn the_grow_marker_gives_a_file_name() {
        let ptx = format!(
            ".version 8.7\n}}\n{DYNAMIC_SMEM_MARKER} 1024\n{GROW_DYNAMIC_MARKER} /tmp/a b.json\n"
        );
        assert_eq!(grow_dynamic_marker(&ptx), Ok(Some("/tmp/a b.json".into())));
        assert_eq!(dynamic_smem_marker(&ptx), Ok(Some(1024)));
        let empty = format!(".version 8.7\n{GROW_DYNAMIC_MARKER}\n");
        let why = grow_dynamic_marker(&empty).unwrap_err();
        assert!(why.contains("expected a file name"), "{why}");
        let (two, warnings) = inputs_value(
            &[
                ("a.ptx".into(), Some(&*format!("{GROW_DYNAMIC_MARKER} x\n"))),
                ("b.ptx".into(), Some(&*format!("{GROW_DYNAMIC_MARKER} y\n"))),
            ],
            grow_dynamic_marker,
            "grow report",
        );
        assert_eq!(two, None);
        assert!(
            warnings[0].contains("different grow reports"),
            "{warnings:?}"
        );
    }
}

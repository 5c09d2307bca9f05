//! The launch fact a PTX file can carry for the drop-in (issue 12: "where the dynamic size is
//! unknown, find it … a Triton-side hook if Triton offers one at assembly time"): a comment line
//! `// warpsmith-dynamic-smem: BYTES` after the file's last statement gives the dynamic shared
//! memory its kernels are launched with, as `WARPSMITH_SPILL_DYNAMIC_SMEM` does for a whole
//! process. `python/warpsmith_triton.py` appends it to the PTX Triton hands to ptxas, from the
//! kernel's own metadata, so each kernel of a Triton process gets its own size. NVIDIA's ptxas
//! reads it as a comment, and at the end it moves no line: ptxas's line information counts PTX
//! lines, and a line added at the top changes the cubin's bytes (ptxas 13.4, `-lineinfo`).

/// The comment that gives the dynamic size, followed by the byte count.
pub const DYNAMIC_SMEM_MARKER: &str = "// warpsmith-dynamic-smem:";

/// The variable the passes and the post-ptxas stage read the dynamic size from.
const DYNAMIC_SMEM_VAR: &str = "WARPSMITH_SPILL_DYNAMIC_SMEM";

/// The byte count of `text`'s [`DYNAMIC_SMEM_MARKER`] line, read among the blank and comment
/// lines after the last statement; `Ok(None)` without one. A malformed count, or two different
/// ones, is an error that names the line.
pub fn dynamic_smem_marker(text: &str) -> Result<Option<u32>, String> {
    let mut found: Option<u32> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate().rev() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(DYNAMIC_SMEM_MARKER) {
            let bytes = rest.trim().parse::<u32>().map_err(|_| {
                format!(
                    "line {}: `{line}`: expected a byte count after `{DYNAMIC_SMEM_MARKER}`",
                    n + 1
                )
            })?;
            if let Some(later) = found.filter(|&f| f != bytes) {
                return Err(format!(
                    "line {}: a second dynamic size ({bytes} B before {later} B)",
                    n + 1
                ));
            }
            found = Some(bytes);
        } else if !(line.is_empty() || line.starts_with("//")) {
            break;
        }
    }
    Ok(found)
}

/// One input as the drop-in read it: its name for messages and its text (`None`: unreadable,
/// or not UTF-8).
pub type InputText<'a> = (String, Option<&'a str>);

/// The dynamic size this run's inputs give: every input's marker when all carry the same one,
/// else none (an input without one keeps the process's setting, so a mixed run takes none).
/// Problems are returned as warnings.
fn inputs_dynamic_smem(texts: &[InputText]) -> (Option<u32>, Vec<String>) {
    let mut sizes = Vec::new();
    for (name, text) in texts {
        let Some(text) = text else {
            return (None, Vec::new());
        };
        match dynamic_smem_marker(text) {
            Ok(Some(n)) => sizes.push(n),
            Ok(None) => return (None, Vec::new()),
            Err(why) => {
                return (
                    None,
                    vec![format!(
                        "{name}: {why}; the dynamic shared-memory size is not taken from it"
                    )],
                )
            }
        }
    }
    sizes.dedup();
    match sizes.as_slice() {
        [n] => (Some(*n), Vec::new()),
        [] => (None, Vec::new()),
        _ => (
            None,
            vec![format!(
                "the inputs give different dynamic shared-memory sizes ({sizes:?} B): none is used"
            )],
        ),
    }
}

/// Reads the inputs' markers and, where they give one size, sets `WARPSMITH_SPILL_DYNAMIC_SMEM`
/// in this process for every pass of the run (and the post-ptxas stage); the file's size wins
/// over the variable's. Returns the warnings to print.
pub fn apply_dynamic_smem_marker(texts: &[InputText]) -> Vec<String> {
    let (size, warnings) = inputs_dynamic_smem(texts);
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
            why.starts_with("line 2:") && why.contains("1024 B before 2048 B"),
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
}

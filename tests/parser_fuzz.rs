//! Parser robustness: mutated PTX (byte flips, truncations, spliced and deleted lines, random
//! tokens) must never make the parser panic — it either parses (and then the printed text must
//! re-parse to the same module) or returns diagnostics with positions inside the input.
//!
//! Deterministic: a fixed-seed xorshift generator; `WARPSMITH_FUZZ_ITERS` raises the iteration
//! count for longer runs (default 3000 per seed file).

mod common;

use common::*;
use warpsmith::ptx::{parse_module, print_module};

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ":",
    "@",
    "!",
    "|",
    "+",
    "-",
    "<",
    ">",
    "=",
    ".reg",
    ".b32",
    ".pred",
    ".param",
    ".entry",
    ".func",
    ".shared",
    ".align",
    ".version",
    "%r1",
    "%p1",
    "%rd1",
    "%tid",
    ".x",
    "0f3F800000",
    "0d3FF0000000000000",
    "0x",
    "0b2",
    "1e",
    "99999999999999999999999",
    "\"",
    "/*",
    "//",
    "\n",
    "bra",
    "call",
    "ld.global",
    "$L__BB0_1",
    "_",
    ".branchtargets",
    ".callprototype",
    ".loc",
    ".section",
    "\u{fffd}",
    "\0",
    ".maxntid",
    "%r<",
    "generic(",
    ".ptr",
];

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut s: Vec<u8> = src.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            0 => {
                // Truncate.
                let n = rng.below(s.len() + 1);
                s.truncate(n);
            }
            1 => {
                // Flip a byte to a printable or special one.
                if !s.is_empty() {
                    let i = rng.below(s.len());
                    const BYTES: &[u8] = b" ;{}[]()%.,:@!|+-<>=0123456789abcxyz\"/\n\t";
                    s[i] = BYTES[rng.below(BYTES.len())];
                }
            }
            2 => {
                // Insert a token.
                let i = rng.below(s.len() + 1);
                let t = TOKENS[rng.below(TOKENS.len())];
                s.splice(i..i, t.bytes().chain(std::iter::once(b' ')));
            }
            3 => {
                // Delete a range.
                if !s.is_empty() {
                    let i = rng.below(s.len());
                    let n = rng.below(64).min(s.len() - i);
                    s.drain(i..i + n);
                }
            }
            4 => {
                // Duplicate a line elsewhere.
                let text = String::from_utf8_lossy(&s).into_owned();
                let lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let l = lines[rng.below(lines.len())].to_string();
                    let i = rng.below(s.len() + 1);
                    s.splice(i..i, l.bytes().chain(std::iter::once(b'\n')));
                }
            }
            _ => {
                // Swap two bytes.
                if s.len() > 1 {
                    let (i, j) = (rng.below(s.len()), rng.below(s.len()));
                    s.swap(i, j);
                }
            }
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

#[test]
fn mutated_ptx_never_panics() {
    let iters: usize = std::env::var("WARPSMITH_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut seeds = vec![include_str!("../lit-tests/tools/Inputs/add.ptx").to_string()];
    if let Some(shared) = shared_dir() {
        let files = files_with_ext(
            &shared.join("corpus/zluda-ptx/ptx/src/test/spirv_run"),
            "ptx",
        );
        // A spread of corpus files: calls, vectors, shuffles, atomics.
        for f in files.iter().step_by(files.len().max(8) / 8) {
            seeds.push(std::fs::read_to_string(f).unwrap());
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut parsed, mut rejected) = (0usize, 0usize);
    for seed in &seeds {
        for _ in 0..iters {
            let text = mutate(&mut rng, seed);
            match parse_module(&text, "fuzz.ptx") {
                Ok(m) => {
                    parsed += 1;
                    let printed = print_module(&m);
                    let again = parse_module(&printed, "printed.ptx").unwrap_or_else(|e| panic!("printed text does not re-parse: {e}\n--- input\n{text}\n--- printed\n{printed}"));
                    assert_eq!(
                        m, again,
                        "round trip changed the module\n--- input\n{text}\n--- printed\n{printed}"
                    );
                }
                Err(e) => {
                    rejected += 1;
                    let lines = text.lines().count().max(1) as u32 + 1;
                    for d in &e.0 {
                        assert!(
                            d.line >= 1 && d.line <= lines,
                            "diagnostic line out of range: {d}"
                        );
                        assert!(d.col >= 1, "diagnostic column out of range: {d}");
                    }
                }
            }
        }
    }
    eprintln!(
        "fuzz: {} inputs, {parsed} parsed and round-tripped, {rejected} rejected with diagnostics",
        parsed + rejected
    );
    assert!(
        rejected > 0 && parsed > 0,
        "the mutations should produce both valid and invalid inputs"
    );
}

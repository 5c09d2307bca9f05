//! The divergence analysis never panics and stays well-formed on any input (issue 4):
//! - every function of every parseable file of the ZLUDA PTX corpus (../shared/corpus/zluda-ptx),
//!   under every option combination;
//! - thousands of random, often malformed, LLVM function descriptions (what the plugin's C++ shim
//!   could hand over): the analysis returns a result or a `BadDescription` error.

use std::path::PathBuf;

use warpsmith::analysis::divergence::engine::CycleData;
use warpsmith::analysis::divergence::llvm::{
    analyze, BlockDesc, BranchDesc, FunctionDesc, OperandDesc, ValueDesc, ValueKind,
};
use warpsmith::analysis::divergence::{analyze_module, Class, Options};
use warpsmith::ptx::parse_module;

fn ptx_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn zluda_corpus_is_analysed_without_panics() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/zluda-ptx");
    let mut files = Vec::new();
    ptx_files(&corpus, &mut files);
    if files.is_empty() {
        eprintln!("SKIPPED: ../shared/corpus/zluda-ptx is not beside the checkout");
        return;
    }
    let option_sets = [
        Options::default(),
        Options {
            assume_1d: true,
            ..Options::default()
        },
        Options {
            block_dim: Some([16, 8, 2]),
            assume_no_wrap: true,
            ..Options::default()
        },
    ];
    let (mut functions, mut registers) = (0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(m) = parse_module(&text, &f.display().to_string()) else {
            continue;
        };
        for opts in &option_sets {
            for r in analyze_module(&m, opts) {
                functions += 1;
                registers += r.registers.len();
                for reg in &r.registers {
                    // Classes are canonical: an affine class never has coefficient 0.
                    if let Class::Affine { coef, .. } | Class::ConstantAffine { coef, .. } =
                        reg.class
                    {
                        assert_ne!(coef, 0, "{}: {} {}", f.display(), r.name, reg.name);
                    }
                }
            }
        }
    }
    eprintln!("analysed {functions} functions, {registers} register classes");
    assert!(functions > 200);
}

/// xorshift64*: deterministic pseudo-random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

fn random_desc(rng: &mut Rng) -> FunctionDesc {
    let nb = rng.below(6) as u32 + 1;
    let nv = rng.below(40) as u32 + 1;
    // Indices are mostly in range, sometimes not.
    let idx = |rng: &mut Rng, n: u32| -> u32 {
        if rng.below(50) == 0 {
            n + rng.below(3) as u32
        } else {
            rng.below(u64::from(n)) as u32
        }
    };
    let mut values = Vec::new();
    for _ in 0..nv {
        let kind = ValueKind::from_u32(rng.below(26) as u32).unwrap_or(ValueKind::Divergent);
        let nops = rng.below(5);
        let operands = (0..nops)
            .map(|_| match rng.below(6) {
                0 => OperandDesc::Value(idx(rng, nv)),
                1 => OperandDesc::Int(rng.next() as i64 >> rng.below(64)),
                2 => OperandDesc::Uniform,
                3 => OperandDesc::Undef,
                4 => OperandDesc::Block(idx(rng, nb)),
                _ => OperandDesc::Scaled(idx(rng, nv), rng.below(64) as i64 - 8),
            })
            .collect();
        values.push(ValueDesc {
            kind,
            block: if kind == ValueKind::Argument {
                None
            } else {
                Some(idx(rng, nb))
            },
            width: [0, 1, 8, 16, 32, 64, 128][rng.below(7) as usize],
            flags: rng.below(128) as u32,
            aux: rng.below(45) as u32,
            operands,
        });
    }
    let ncycles = rng.below(3) as u32;
    let cycles = (0..ncycles)
        .map(|c| CycleData {
            header: idx(rng, nb),
            parent: match rng.below(8) {
                0 => Some(c + rng.below(2) as u32),
                1..=4 if c > 0 => Some(c - 1),
                _ => None,
            },
            depth: if rng.below(10) == 0 { 7 } else { c + 1 },
            reducible: rng.below(4) != 0,
            exits: (0..rng.below(3)).map(|_| idx(rng, nb)).collect(),
        })
        .collect();
    let blocks = (0..nb)
        .map(|_| BlockDesc {
            succs: (0..rng.below(3)).map(|_| idx(rng, nb)).collect(),
            cycle: if ncycles > 0 && rng.below(2) == 0 {
                Some(idx(rng, ncycles))
            } else {
                None
            },
            branch: match rng.below(3) {
                0 => BranchDesc::None,
                1 => BranchDesc::On(idx(rng, nv)),
                _ => BranchDesc::Divergent,
            },
        })
        .collect();
    FunctionDesc {
        name: "fuzz".into(),
        is_kernel: rng.below(2) == 0,
        reqntid: match rng.below(3) {
            0 => None,
            1 => Some(vec![rng.below(1100) as u32]),
            _ => Some(vec![32, 0, 4, 9]),
        },
        values,
        blocks,
        cycles,
    }
}

#[test]
fn random_llvm_descriptions_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut rejected) = (0, 0);
    for _ in 0..5000 {
        let d = random_desc(&mut rng);
        let opts = Options {
            assume_1d: rng.below(2) == 0,
            assume_no_wrap: rng.below(2) == 0,
            block_dim: None,
        };
        match analyze(&d, &opts) {
            Ok(r) => {
                assert_eq!(r.values.len(), d.values.len());
                assert_eq!(r.branches.len(), d.blocks.len());
                ok += 1;
            }
            Err(_) => rejected += 1,
        }
    }
    eprintln!("random descriptions: {ok} analysed, {rejected} rejected as malformed");
    assert!(ok > 1000);
}

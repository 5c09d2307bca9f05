//! The interpreter is generic over its value domain: a second domain, written here outside the
//! library, runs a kernel through the very same interpreter. It tracks, for every value, which
//! global allocations it was computed from (taint), and keeps a memory overlay keyed by the
//! exact location of each store — the pattern a Z3 bit-vector domain follows for symbolic
//! memory contents.

use std::collections::HashMap;

use warpsmith::emu::concrete::Concrete;
use warpsmith::emu::decode::Program;
use warpsmith::emu::domain::{Domain, DomainError, MemAt, Op};
use warpsmith::emu::launch::run_program_with;
use warpsmith::emu::memory::Region;
use warpsmith::emu::{LaunchSpec, RunOptions};
use warpsmith::ptx::parse_module;

/// A concrete value plus the set of global allocations it depends on (bit i: allocation i).
#[derive(Clone, Debug, PartialEq)]
struct Tainted {
    bits: u64,
    taint: u64,
}

#[derive(Default)]
struct TaintDomain {
    overlay: HashMap<(Region, u64), u64>,
    ops: u64,
}

impl Domain for TaintDomain {
    type Val = Tainted;
    fn name(&self) -> &'static str {
        "taint"
    }
    fn lit(&mut self, bits: u64) -> Tainted {
        Tainted { bits, taint: 0 }
    }
    fn concrete(&self, v: &Tainted) -> Option<u64> {
        Some(v.bits)
    }
    fn apply(&mut self, op: Op, args: &[Tainted]) -> Result<Tainted, DomainError> {
        self.ops += 1;
        let raw: Vec<u64> = args.iter().map(|a| a.bits).collect();
        Ok(Tainted {
            bits: Concrete.apply(op, &raw)?,
            taint: args.iter().fold(0, |t, a| t | a.taint),
        })
    }
    fn load(&mut self, at: MemAt, bytes: &[u8]) -> Tainted {
        let mut b = [0u8; 8];
        b[..bytes.len()].copy_from_slice(bytes);
        let own = match at.region {
            Region::Global(i) => 1u64 << i,
            _ => 0,
        };
        let stored = self
            .overlay
            .get(&(at.region, at.offset))
            .copied()
            .unwrap_or(0);
        Tainted {
            bits: u64::from_le_bytes(b),
            taint: own | stored,
        }
    }
    fn store(&mut self, at: MemAt, v: &Tainted, out: &mut [u8]) -> Result<(), DomainError> {
        let n = out.len();
        out.copy_from_slice(&v.bits.to_le_bytes()[..n]);
        self.overlay.insert((at.region, at.offset), v.taint);
        Ok(())
    }
}

const KERNEL: &str = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry mix(.param .u64 a, .param .u64 b, .param .u64 c)
{
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<12>;
	ld.param.u64 	%rd1, [a];
	ld.param.u64 	%rd2, [b];
	ld.param.u64 	%rd3, [c];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd1, %rd4;
	add.s64 	%rd6, %rd2, %rd4;
	add.s64 	%rd7, %rd3, %rd4;
	ld.global.u32 	%r2, [%rd5];
	shl.b32 	%r3, %r2, 1;
	st.global.u32 	[%rd6], %r3;
	mov.u32 	%r4, 7;
	st.global.u32 	[%rd7], %r4;
	ret;
}
"#;

#[test]
fn a_second_domain_runs_through_the_same_interpreter() {
    let m = parse_module(KERNEL, "mix.ptx").expect("parses");
    let prog = Program::new(&m, "mix.ptx").expect("decodes");
    let spec = LaunchSpec::from_json(
        r#"{"kernel":"mix","grid":[1],"block":[8],"args":[
            {"buffer":{"type":"u32","len":8,"init":"iota"}},
            {"buffer":{"type":"u32","len":8}},
            {"buffer":{"type":"u32","len":8}}]}"#,
    )
    .expect("spec");
    let (out, dom) = run_program_with(&prog, &spec, &RunOptions::default(), TaintDomain::default())
        .expect("runs");
    // Values are the concrete ones.
    assert_eq!(&out.buffers[1].data[..8], &[0, 0, 0, 0, 2, 0, 0, 0]);
    // b[i] was computed from a (allocation 0); c[i] from a constant.
    for lane in 0..8u64 {
        assert_eq!(
            dom.overlay[&(Region::Global(1), lane * 4)],
            1,
            "b[{lane}] depends on a"
        );
        assert_eq!(
            dom.overlay[&(Region::Global(2), lane * 4)],
            0,
            "c[{lane}] is a constant"
        );
    }
    assert!(dom.ops > 0);
}

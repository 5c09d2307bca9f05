//! The LLVM IR front end of the divergence analysis: values are the arguments and instructions of
//! an LLVM function, described by the plugin's C++ shim (`src/plugin/shim.cpp`) in the flat form
//! [`FunctionDesc`], so that the whole analysis stays in Rust and needs no LLVM bindings.
//!
//! The transfer functions are those of Sampaio et al. §2 on SSA values, with the sources of
//! divergence of LLVM's NVPTX `isSourceOfDivergence` made precise: `%tid` is affine (when the block
//! shape allows, see [`super::BlockShape::tid`]), `%laneid` is `1·T + 0`, `%ctaid`/`%ntid`/kernel
//! arguments are block-uniform, warp collectives (`vote`, `ballot`, `activemask`, `redux`,
//! `match.all`, `shfl.idx` from a uniform lane) are warp-uniform, and loads follow their address
//! space as in the PTX front end (generic and local loads are divergent). No-wrap flags (`nsw`,
//! `nuw`) make extensions of affine values exact.
//!
//! Sync dependence as in LLVM's `UniformityAnalysis`: phi nodes in a join block of a non-uniform
//! branch are tainted (unless all incoming values are the same value), and uses outside a cycle of
//! values defined inside it are tainted when the cycle has a divergent exit.

use super::engine::{self, Branch, CycleData, Cycles, DivergenceIr};
use super::lattice::{ops, Abs, Class, NoWrap, Scope, Taint};
use super::{BlockShape, ClassCounts, DivergenceError, Options};

/// What a value computes. The numbering is the C ABI shared with `shim.cpp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ValueKind {
    /// A function argument (`flags` has [`flags::KERNEL_ARG`] for kernel arguments).
    Argument = 0,
    /// `phi`: operands alternate incoming value and [`OperandDesc::Block`].
    Phi = 1,
    /// `add`
    Add = 2,
    /// `sub`
    Sub = 3,
    /// `mul`
    Mul = 4,
    /// `shl`
    Shl = 5,
    /// `lshr`
    LShr = 6,
    /// `ashr`
    AShr = 7,
    /// `and`
    And = 8,
    /// `or`
    Or = 9,
    /// `xor`
    Xor = 10,
    /// `icmp` (`aux`: LLVM's `CmpInst::Predicate`, 32 = eq … 41 = sle).
    ICmp = 11,
    /// `select c, a, b`
    Select = 12,
    /// `trunc`
    Trunc = 13,
    /// `zext`
    ZExt = 14,
    /// `sext`
    SExt = 15,
    /// `bitcast`, `freeze`, `ptrtoint`, `inttoptr`: the same bits, maybe another width.
    Copy = 16,
    /// `getelementptr`: base, then [`OperandDesc::Scaled`] indices, then an [`OperandDesc::Int`]
    /// constant offset.
    Gep = 17,
    /// `load` (`aux`: address space; `flags`: volatile, atomic, invariant).
    Load = 18,
    /// A pure operation that is not affine: uniform when its operands are.
    UniformOp = 19,
    /// A source of divergence (atomics, calls, anything not understood).
    Divergent = 20,
    /// No value (stores, fences, terminators).
    Void = 21,
    /// A special register or warp collective (`aux`: [`special`]).
    Special = 22,
    /// `shfl.sync.idx`: operands mask, value, lane, clamp.
    ShuffleIdx = 23,
    /// `addrspacecast`: adds an unknown uniform window base.
    AddrSpaceCast = 24,
    /// `alloca`: the same local-memory address on every lane.
    Alloca = 25,
}

impl ValueKind {
    /// The kind with ABI number `n`.
    pub fn from_u32(n: u32) -> Option<ValueKind> {
        use ValueKind::*;
        Some(match n {
            0 => Argument,
            1 => Phi,
            2 => Add,
            3 => Sub,
            4 => Mul,
            5 => Shl,
            6 => LShr,
            7 => AShr,
            8 => And,
            9 => Or,
            10 => Xor,
            11 => ICmp,
            12 => Select,
            13 => Trunc,
            14 => ZExt,
            15 => SExt,
            16 => Copy,
            17 => Gep,
            18 => Load,
            19 => UniformOp,
            20 => Divergent,
            21 => Void,
            22 => Special,
            23 => ShuffleIdx,
            24 => AddrSpaceCast,
            25 => Alloca,
            _ => return None,
        })
    }
}

/// `aux` codes of [`ValueKind::Special`].
pub mod special {
    /// `%tid.x`
    pub const TID_X: u32 = 0;
    /// `%tid.y`
    pub const TID_Y: u32 = 1;
    /// `%tid.z`
    pub const TID_Z: u32 = 2;
    /// `%ntid.x`
    pub const NTID_X: u32 = 3;
    /// `%ntid.y`
    pub const NTID_Y: u32 = 4;
    /// `%ntid.z`
    pub const NTID_Z: u32 = 5;
    /// `%laneid`
    pub const LANEID: u32 = 6;
    /// `WARP_SZ`
    pub const WARPSIZE: u32 = 7;
    /// The same on the active lanes of a warp (`%warpid`, `%smid`, `vote`, `ballot`, …).
    pub const WARP_UNIFORM: u32 = 8;
    /// The same in the whole block (`%ctaid`, `%nctaid`, `bar.red`, …).
    pub const BLOCK_UNIFORM: u32 = 9;
    /// Different on every lane (`%lanemask_*`, clocks, `match.any`, …).
    pub const DIVERGENT: u32 = 10;
}

/// Bits of [`ValueDesc::flags`].
pub mod flags {
    /// `nsw`
    pub const NSW: u32 = 1;
    /// `nuw`
    pub const NUW: u32 = 2;
    /// A volatile load.
    pub const VOLATILE: u32 = 4;
    /// An atomic load.
    pub const ATOMIC: u32 = 8;
    /// `!invariant.load`: the data does not change while the kernel runs.
    pub const INVARIANT: u32 = 16;
    /// An argument of a kernel (uniform in the whole grid).
    pub const KERNEL_ARG: u32 = 32;
    /// Signed comparison or division (informational).
    pub const SIGNED: u32 = 64;
}

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandDesc {
    /// Another value of the function.
    Value(u32),
    /// An integer constant (normalised by the analysis to the operation's width).
    Int(i64),
    /// A constant that is not an integer (a global's address, a float, `null`): block-uniform.
    Uniform,
    /// `undef` or `poison`.
    Undef,
    /// A block (the incoming block of a phi operand).
    Block(u32),
    /// A value times a constant (a `getelementptr` index and its scale in bytes).
    Scaled(u32, i64),
}

/// One argument or instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueDesc {
    /// What it computes.
    pub kind: ValueKind,
    /// Its block (`None` for arguments).
    pub block: Option<u32>,
    /// The bit width of an integer or pointer result; 0 for anything else.
    pub width: u32,
    /// [`flags`] bits.
    pub flags: u32,
    /// Kind-specific: predicate, address space, special register.
    pub aux: u32,
    /// Operands.
    pub operands: Vec<OperandDesc>,
}

/// How a block's terminator picks a successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchDesc {
    /// Unconditional (or a constant condition, or no successor).
    None,
    /// On this value (`br i1 %c`, `switch %x`).
    On(u32),
    /// Unknown (`indirectbr`, `callbr`).
    Divergent,
}

/// One basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockDesc {
    /// Successors.
    pub succs: Vec<u32>,
    /// Innermost cycle.
    pub cycle: Option<u32>,
    /// How the terminator branches.
    pub branch: BranchDesc,
}

/// One LLVM function, flattened by the shim.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionDesc {
    /// The function's name.
    pub name: String,
    /// A kernel (`ptx_kernel` calling convention).
    pub is_kernel: bool,
    /// `nvvm.reqntid`, if present.
    pub reqntid: Option<Vec<u32>>,
    /// Arguments first, then instructions in block order.
    pub values: Vec<ValueDesc>,
    /// Blocks; block 0 is the entry.
    pub blocks: Vec<BlockDesc>,
    /// Cycles (LLVM `CycleInfo`).
    pub cycles: Vec<CycleData>,
}

/// The result for one LLVM function.
#[derive(Clone, Debug)]
pub struct LlvmDivergence {
    /// The abstract value of every value (in [`FunctionDesc::values`] order).
    pub values: Vec<Abs>,
    /// The taint of every block's terminator.
    pub branches: Vec<Taint>,
    /// What was known about the block shape.
    pub shape: BlockShape,
    /// Why some sources were treated conservatively.
    pub notes: Vec<String>,
}

impl LlvmDivergence {
    /// The class of value `v`.
    pub fn class(&self, v: usize) -> Class {
        self.values.get(v).map_or(Class::Undefined, Abs::class)
    }

    /// Class counts over the values that produce something.
    pub fn counts(&self, desc: &FunctionDesc) -> ClassCounts {
        let mut c = ClassCounts::default();
        for (v, d) in self.values.iter().zip(&desc.values) {
            if d.kind != ValueKind::Void {
                c.add(&v.class());
            }
        }
        c
    }
}

/// Checks that every index in `desc` is in range.
pub fn validate(desc: &FunctionDesc) -> Result<(), DivergenceError> {
    let nv = desc.values.len() as u64;
    let nb = desc.blocks.len() as u64;
    let nc = desc.cycles.len() as u64;
    let bad = |what: String| Err(DivergenceError::BadDescription(what));
    if nb == 0 && desc.values.iter().any(|v| v.block.is_some()) {
        return bad("instructions but no blocks".into());
    }
    for (i, v) in desc.values.iter().enumerate() {
        if v.block.is_some_and(|b| u64::from(b) >= nb) {
            return bad(format!("value {i}: block out of range"));
        }
        if v.width > 64 {
            // Wider integers are not tracked affinely; the transfer functions treat them as opaque.
        }
        for o in &v.operands {
            match *o {
                OperandDesc::Value(x) | OperandDesc::Scaled(x, _) if u64::from(x) >= nv => {
                    return bad(format!("value {i}: operand {x} out of range"));
                }
                OperandDesc::Block(b) if u64::from(b) >= nb => {
                    return bad(format!("value {i}: block operand {b} out of range"));
                }
                _ => {}
            }
        }
    }
    for (i, b) in desc.blocks.iter().enumerate() {
        if b.succs.iter().any(|&s| u64::from(s) >= nb) {
            return bad(format!("block {i}: successor out of range"));
        }
        if b.cycle.is_some_and(|c| u64::from(c) >= nc) {
            return bad(format!("block {i}: cycle out of range"));
        }
        if let BranchDesc::On(v) = b.branch {
            if u64::from(v) >= nv {
                return bad(format!("block {i}: branch condition out of range"));
            }
        }
    }
    for (i, c) in desc.cycles.iter().enumerate() {
        if u64::from(c.header) >= nb
            || c.parent.is_some_and(|p| u64::from(p) >= nc)
            || c.exits.iter().any(|&e| u64::from(e) >= nb)
        {
            return bad(format!("cycle {i}: index out of range"));
        }
        // A forest listed outer cycles first: parents come before children, one level up.
        let expected_depth = match c.parent {
            Some(p) if (p as usize) < i => desc.cycles[p as usize].depth.saturating_add(1),
            Some(_) => return bad(format!("cycle {i}: parent listed after it")),
            None => 1,
        };
        if c.depth != expected_depth {
            return bad(format!(
                "cycle {i}: depth {} (expected {expected_depth})",
                c.depth
            ));
        }
    }
    Ok(())
}

/// Analyses one LLVM function.
pub fn analyze(desc: &FunctionDesc, opts: &Options) -> Result<LlvmDivergence, DivergenceError> {
    validate(desc)?;
    let ir = LlvmIr::new(desc, opts);
    let sol = engine::solve(&ir);
    let mut notes = Vec::new();
    let mut seen = [false; 3];
    for v in &desc.values {
        if v.kind == ValueKind::Special && v.aux <= special::TID_Z {
            seen[v.aux as usize] = true;
        }
    }
    for (k, s) in seen.iter().enumerate() {
        if *s {
            if let (_, Some(n)) = ir.shape.tid(k) {
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
    }
    if sol.irreducible_fallback {
        notes.push(
            "irreducible control flow with a non-uniform branch: every value is treated as \
             non-uniform at that branch's level"
                .into(),
        );
    }
    Ok(LlvmDivergence {
        values: sol.values,
        branches: sol.branches,
        shape: ir.shape,
        notes,
    })
}

struct LlvmIr<'a> {
    d: &'a FunctionDesc,
    opts: &'a Options,
    shape: BlockShape,
    users: Vec<Vec<u32>>,
    succs: Vec<Vec<u32>>,
    rpo: Vec<u32>,
    cycles: Cycles,
    /// Phis of each block.
    phis: Vec<Vec<u32>>,
    /// Values defined in each block.
    block_values: Vec<Vec<u32>>,
}

impl<'a> LlvmIr<'a> {
    fn new(d: &'a FunctionDesc, opts: &'a Options) -> LlvmIr<'a> {
        let n = d.values.len();
        let nb = d.blocks.len();
        let mut users = vec![Vec::new(); n];
        let mut phis = vec![Vec::new(); nb];
        let mut block_values = vec![Vec::new(); nb];
        for (i, v) in d.values.iter().enumerate() {
            for o in &v.operands {
                if let OperandDesc::Value(x) | OperandDesc::Scaled(x, _) = *o {
                    users[x as usize].push(i as u32);
                }
            }
            if let Some(b) = v.block {
                block_values[b as usize].push(i as u32);
                if v.kind == ValueKind::Phi {
                    phis[b as usize].push(i as u32);
                }
            }
        }
        for u in &mut users {
            u.sort_unstable();
            u.dedup();
        }
        let succs: Vec<Vec<u32>> = d.blocks.iter().map(|b| b.succs.clone()).collect();
        let rpo = reverse_post_order(&succs);
        let cycles = Cycles {
            cycles: d.cycles.clone(),
            innermost: d.blocks.iter().map(|b| b.cycle).collect(),
        };
        let shape = BlockShape::new(d.reqntid.as_deref(), opts);
        LlvmIr {
            d,
            opts,
            shape,
            users,
            succs,
            rpo,
            cycles,
            phis,
            block_values,
        }
    }

    fn width_of(&self, v: u32) -> u32 {
        self.d.values.get(v as usize).map_or(0, |x| x.width)
    }

    /// An operand read at width `w` (0: not an integer).
    fn operand(&self, o: &OperandDesc, w: u32, state: &[Abs]) -> Abs {
        match *o {
            OperandDesc::Value(x) => {
                let a = state.get(x as usize).copied().unwrap_or(Abs::DIVERGENT);
                let xw = self.width_of(x);
                if xw == w || a.is_top() || a.is_divergent() {
                    a
                } else if a.is_uniform() {
                    ops::uniform_only(&[a])
                } else {
                    Abs::DIVERGENT
                }
            }
            OperandDesc::Int(k) => {
                if (1..=64).contains(&w) {
                    Abs::constant(super::lattice::norm(k, w))
                } else {
                    Abs::uniform(Scope::Block)
                }
            }
            OperandDesc::Uniform => Abs::uniform(Scope::Block),
            // LLVM may pick any value for undef, so a uniform choice is allowed (LLVM treats
            // undef as uniform too); phis skip undef inputs altogether.
            OperandDesc::Undef => Abs::uniform(Scope::Block),
            OperandDesc::Block(_) => Abs::TOP,
            OperandDesc::Scaled(x, k) => self.operand(&OperandDesc::Value(x), w, state).pipe(|a| {
                ops::mul(
                    a,
                    Abs::constant(super::lattice::norm(k, w)),
                    w,
                    NoWrap::NONE,
                )
            }),
        }
    }

    fn nowrap(&self, f: u32) -> NoWrap {
        if self.opts.assume_no_wrap {
            return NoWrap::BOTH;
        }
        NoWrap {
            nsw: f & flags::NSW != 0,
            nuw: f & flags::NUW != 0,
        }
    }

    fn eval(&self, v: &ValueDesc, state: &[Abs]) -> Abs {
        use ValueKind as K;
        let w = v.width;
        let affine_ok = (1..=64).contains(&w);
        let op = |i: usize| -> Abs {
            v.operands
                .get(i)
                .map_or(Abs::DIVERGENT, |o| self.operand(o, w, state))
        };
        let all_ops = || -> Vec<Abs> {
            v.operands
                .iter()
                .filter(|o| !matches!(o, OperandDesc::Block(_)))
                .map(|o| match *o {
                    OperandDesc::Value(x) => {
                        state.get(x as usize).copied().unwrap_or(Abs::DIVERGENT)
                    }
                    OperandDesc::Scaled(x, _) => {
                        state.get(x as usize).copied().unwrap_or(Abs::DIVERGENT)
                    }
                    _ => Abs::uniform(Scope::Block),
                })
                .collect()
        };
        let nw = self.nowrap(v.flags);
        match v.kind {
            K::Argument => {
                if v.flags & flags::KERNEL_ARG != 0 {
                    Abs::uniform(Scope::Block)
                } else {
                    Abs::DIVERGENT
                }
            }
            K::Phi => {
                let mut acc = Abs::TOP;
                for o in v
                    .operands
                    .iter()
                    .filter(|o| !matches!(o, OperandDesc::Block(_) | OperandDesc::Undef))
                {
                    acc = acc.meet(self.operand(o, w, state));
                }
                acc
            }
            K::Void => Abs::TOP,
            K::Divergent => Abs::DIVERGENT,
            _ if !affine_ok
                && !matches!(
                    v.kind,
                    K::Load | K::Special | K::ShuffleIdx | K::Alloca | K::Select | K::ICmp
                ) =>
            {
                ops::uniform_only(&all_ops())
            }
            K::Add => ops::add(op(0), op(1), w, nw),
            K::Sub => ops::sub(op(0), op(1), w, nw),
            K::Mul => ops::mul(op(0), op(1), w, nw),
            K::Shl => ops::shl(op(0), op(1), w, nw),
            K::LShr => ops::shr(op(0), op(1), w, false),
            K::AShr => ops::shr(op(0), op(1), w, true),
            K::And => ops::and(op(0), op(1), w),
            K::Or => ops::or(op(0), op(1), w),
            K::Xor => ops::xor(op(0), op(1), w),
            K::UniformOp => ops::uniform_only(&all_ops()),
            K::ICmp => {
                let ow = match v.operands.first() {
                    Some(OperandDesc::Value(x)) => self.width_of(*x),
                    _ => match v.operands.get(1) {
                        Some(OperandDesc::Value(x)) => self.width_of(*x),
                        _ => 64,
                    },
                };
                let a = v
                    .operands
                    .first()
                    .map_or(Abs::DIVERGENT, |o| self.operand(o, ow, state));
                let b = v
                    .operands
                    .get(1)
                    .map_or(Abs::DIVERGENT, |o| self.operand(o, ow, state));
                if !(1..=64).contains(&ow) {
                    return ops::uniform_only(&[a, b]);
                }
                let eq = matches!(v.aux, 32 | 33);
                let signed = (38..=41).contains(&v.aux);
                ops::cmp(a, b, eq, signed)
            }
            K::Select => {
                let c = v
                    .operands
                    .first()
                    .map_or(Abs::DIVERGENT, |o| self.operand(o, 1, state));
                if affine_ok {
                    ops::select(c, op(1), op(2))
                } else {
                    let ab = all_ops();
                    let a = ab.get(1).copied().unwrap_or(Abs::DIVERGENT);
                    let b = ab.get(2).copied().unwrap_or(Abs::DIVERGENT);
                    ops::select(c, ops::uniform_only(&[a]), ops::uniform_only(&[b]))
                }
            }
            K::Trunc | K::ZExt | K::SExt | K::Copy => {
                let Some(OperandDesc::Value(x)) = v.operands.first() else {
                    return ops::uniform_only(&all_ops());
                };
                let from = self.width_of(*x);
                let a = state.get(*x as usize).copied().unwrap_or(Abs::DIVERGENT);
                if !(1..=64).contains(&from) {
                    return ops::uniform_only(&[a]);
                }
                match v.kind {
                    K::Trunc => ops::trunc(a, w),
                    K::ZExt => ops::ext(a, from, w, false),
                    K::SExt => ops::ext(a, from, w, true),
                    _ => {
                        if from == w {
                            a
                        } else if from > w {
                            ops::trunc(a, w)
                        } else {
                            ops::ext(a, from, w, false)
                        }
                    }
                }
            }
            K::AddrSpaceCast => {
                let a = v.operands.first().map_or(Abs::DIVERGENT, |o| match *o {
                    OperandDesc::Value(x) => {
                        let a = state.get(x as usize).copied().unwrap_or(Abs::DIVERGENT);
                        if self.width_of(x) == w {
                            a
                        } else {
                            ops::uniform_only(&[a])
                        }
                    }
                    _ => Abs::uniform(Scope::Block),
                });
                ops::add(a, Abs::uniform(Scope::Block), w, NoWrap::NONE)
            }
            K::Gep => {
                let mut acc = op(0);
                for o in v.operands.iter().skip(1) {
                    let term = match *o {
                        OperandDesc::Scaled(x, k) => {
                            let xw = self.width_of(x);
                            let a = state.get(x as usize).copied().unwrap_or(Abs::DIVERGENT);
                            let a = if !(1..=64).contains(&xw) {
                                ops::uniform_only(&[a])
                            } else if xw < w {
                                ops::ext(a, xw, w, true)
                            } else if xw > w {
                                ops::trunc(a, w)
                            } else {
                                a
                            };
                            ops::mul(
                                a,
                                Abs::constant(super::lattice::norm(k, w)),
                                w,
                                NoWrap::NONE,
                            )
                        }
                        ref other => self.operand(other, w, state),
                    };
                    acc = ops::add(acc, term, w, NoWrap::NONE);
                }
                acc
            }
            K::Load => {
                if v.flags & (flags::VOLATILE | flags::ATOMIC) != 0 {
                    return Abs::DIVERGENT;
                }
                let Some(addr) = v.operands.first() else {
                    return Abs::DIVERGENT;
                };
                let aw = match addr {
                    OperandDesc::Value(x) => self.width_of(*x),
                    _ => 64,
                };
                let a = self.operand(addr, aw, state);
                if a.is_top() {
                    return Abs::TOP;
                }
                match v.aux {
                    // const, param: read-only.
                    4 | 101 => ops::uniform_only(&[a]),
                    1 if v.flags & flags::INVARIANT != 0 => ops::uniform_only(&[a]),
                    1 | 3 | 7 => ops::uniform_only(&[a]).cap(Taint::Warp),
                    // generic (0) and local (5): may be per-lane memory.
                    _ => Abs::DIVERGENT,
                }
            }
            K::Special => match v.aux {
                special::TID_X | special::TID_Y | special::TID_Z => {
                    fit(self.shape.tid(v.aux as usize).0, w)
                }
                special::NTID_X | special::NTID_Y | special::NTID_Z => {
                    fit(self.shape.ntid((v.aux - special::NTID_X) as usize), w)
                }
                special::LANEID => fit(Abs::constant_affine(1, 0, super::lattice::EXACT_BOTH), w),
                special::WARPSIZE => fit(Abs::constant(32), w),
                special::WARP_UNIFORM => Abs::uniform(Scope::Warp),
                special::BLOCK_UNIFORM => Abs::uniform(Scope::Block),
                _ => Abs::DIVERGENT,
            },
            K::ShuffleIdx => {
                let lane = v
                    .operands
                    .get(2)
                    .map_or(Abs::DIVERGENT, |o| self.operand(o, 32, state));
                let c = v
                    .operands
                    .get(3)
                    .map_or(Abs::DIVERGENT, |o| self.operand(o, 32, state));
                if lane.is_top() || c.is_top() {
                    return Abs::TOP;
                }
                match c.as_const() {
                    Some(k) if (k & 0x1f) == 0x1f && (k >> 8) & 0x1f == 0 && lane.is_uniform() => {
                        ops::uniform_only(&[lane]).cap(Taint::Warp)
                    }
                    _ => Abs::DIVERGENT,
                }
            }
            K::Alloca => Abs::uniform(Scope::Block),
        }
    }
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl Pipe for Abs {}

fn fit(a: Abs, w: u32) -> Abs {
    if !(1..=64).contains(&w) {
        return ops::uniform_only(&[a]);
    }
    if w < 32 {
        ops::trunc(a, w)
    } else {
        a.canon(w)
    }
}

/// Reverse post-order of the blocks reachable from block 0.
pub(crate) fn reverse_post_order(succs: &[Vec<u32>]) -> Vec<u32> {
    let n = succs.len();
    if n == 0 {
        return Vec::new();
    }
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, i) = *top;
        if let Some(&s) = succs[b as usize].get(i) {
            top.1 += 1;
            if (s as usize) < n && !seen[s as usize] {
                seen[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

impl DivergenceIr for LlvmIr<'_> {
    fn num_values(&self) -> usize {
        self.d.values.len()
    }

    fn num_defs(&self) -> usize {
        self.d.values.len()
    }

    fn eval_def(&self, v: u32, state: &[Abs], out: &mut dyn FnMut(u32, Abs)) {
        if let Some(d) = self.d.values.get(v as usize) {
            if d.kind != ValueKind::Void {
                out(v, self.eval(d, state));
            }
        }
    }

    fn users(&self, v: u32) -> &[u32] {
        self.users.get(v as usize).map_or(&[], Vec::as_slice)
    }

    fn num_blocks(&self) -> usize {
        self.d.blocks.len()
    }

    fn succs(&self, b: u32) -> &[u32] {
        self.succs.get(b as usize).map_or(&[], Vec::as_slice)
    }

    fn rpo(&self) -> &[u32] {
        &self.rpo
    }

    fn cycles(&self) -> &Cycles {
        &self.cycles
    }

    fn branch(&self, b: u32) -> Branch {
        match self.d.blocks.get(b as usize).map(|x| x.branch) {
            Some(BranchDesc::On(v)) => Branch::On(v),
            Some(BranchDesc::Divergent) => Branch::Divergent,
            _ => Branch::None,
        }
    }

    fn join_values(&self, join: u32, _region: &[u32], out: &mut Vec<u32>) {
        for &p in self.phis.get(join as usize).map_or(&[][..], Vec::as_slice) {
            let d = &self.d.values[p as usize];
            // A phi whose incoming values are all the same value (or undef) does not merge.
            let mut first: Option<OperandDesc> = None;
            let mut same = true;
            for o in d
                .operands
                .iter()
                .filter(|o| !matches!(o, OperandDesc::Block(_)))
            {
                if *o == OperandDesc::Undef {
                    continue;
                }
                match first {
                    None => first = Some(*o),
                    Some(f) if f == *o => {}
                    Some(_) => same = false,
                }
            }
            if !same {
                out.push(p);
            }
        }
    }

    fn cycle_exit_values(&self, cycle: u32, out: &mut Vec<u32>) {
        for (b, vals) in self.block_values.iter().enumerate() {
            if !self.cycles.contains(cycle, b as u32) {
                continue;
            }
            for &v in vals {
                for &u in self.users(v) {
                    let ub = self.d.values.get(u as usize).and_then(|x| x.block);
                    if ub.is_some_and(|ub| !self.cycles.contains(cycle, ub)) {
                        out.push(u);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(
        kind: ValueKind,
        block: Option<u32>,
        width: u32,
        operands: Vec<OperandDesc>,
    ) -> ValueDesc {
        ValueDesc {
            kind,
            block,
            width,
            flags: 0,
            aux: 0,
            operands,
        }
    }

    fn special_val(aux: u32, block: u32) -> ValueDesc {
        ValueDesc {
            aux,
            ..val(ValueKind::Special, Some(block), 32, vec![])
        }
    }

    use OperandDesc::{Block as B, Int, Scaled, Value as V};

    /// define ptx_kernel void @k(ptr %a, i32 %n) {
    /// entry:  %tid = tid.x; %c = icmp ult %tid, %n; br %c, then, exit
    /// then:   %i = zext %tid; %p = gep float, %a, %i; %x = load float %p (global); br exit
    /// exit:   %r = phi [0, entry], [1, then]; %lane = laneid; %w = lshr %tid, 5
    fn kernel() -> FunctionDesc {
        let mut a = val(ValueKind::Argument, None, 64, vec![]);
        a.flags = flags::KERNEL_ARG;
        let mut n = val(ValueKind::Argument, None, 32, vec![]);
        n.flags = flags::KERNEL_ARG;
        let mut cmp = val(ValueKind::ICmp, Some(0), 1, vec![V(2), V(1)]);
        cmp.aux = 36; // ult
        let mut load = val(ValueKind::Load, Some(1), 0, vec![V(5)]);
        load.aux = 1;
        FunctionDesc {
            name: "k".into(),
            is_kernel: true,
            reqntid: Some(vec![256, 1, 1]),
            values: vec![
                a,                                             // 0
                n,                                             // 1
                special_val(special::TID_X, 0),                // 2
                cmp,                                           // 3
                val(ValueKind::ZExt, Some(1), 64, vec![V(2)]), // 4
                val(
                    ValueKind::Gep,
                    Some(1),
                    64,
                    vec![V(0), Scaled(4, 4), Int(0)],
                ), // 5
                load,                                          // 6
                val(
                    ValueKind::Phi,
                    Some(2),
                    32,
                    vec![Int(0), B(0), Int(1), B(1)],
                ), // 7
                special_val(special::LANEID, 2),               // 8
                val(ValueKind::LShr, Some(2), 32, vec![V(2), Int(5)]), // 9
                val(ValueKind::Void, Some(2), 0, vec![]),      // 10 ret
            ],
            blocks: vec![
                BlockDesc {
                    succs: vec![1, 2],
                    cycle: None,
                    branch: BranchDesc::On(3),
                },
                BlockDesc {
                    succs: vec![2],
                    cycle: None,
                    branch: BranchDesc::None,
                },
                BlockDesc {
                    succs: vec![],
                    cycle: None,
                    branch: BranchDesc::None,
                },
            ],
            cycles: vec![],
        }
    }

    #[test]
    fn kernel_classes() {
        let d = kernel();
        let r = analyze(&d, &Options::default()).unwrap();
        let c = |i: usize| r.class(i).to_string();
        assert_eq!(c(0), "uniform scope=block");
        assert_eq!(c(2), "affine coef=1 scope=warp");
        assert_eq!(c(3), "divergent");
        assert_eq!(c(4), "affine coef=1 scope=warp");
        assert_eq!(c(5), "affine coef=4 scope=warp");
        assert_eq!(c(6), "divergent");
        assert_eq!(c(7), "divergent");
        assert_eq!(c(8), "constant-affine coef=1 base=0");
        assert_eq!(c(9), "uniform scope=warp");
        assert_eq!(r.branches[0], Taint::Divergent);
        assert!(r.notes.is_empty());
        let counts = r.counts(&d);
        assert_eq!(counts.divergent, 3);
    }

    #[test]
    fn uniform_branch_phi_and_unknown_shape() {
        let mut d = kernel();
        // Branch on %n instead: the phi stays uniform.
        d.values[3].operands = vec![V(1), Int(5)];
        d.reqntid = None;
        let r = analyze(&d, &Options::default()).unwrap();
        assert_eq!(r.class(7).to_string(), "uniform scope=block");
        assert_eq!(r.class(2), Class::Divergent);
        assert_eq!(r.notes.len(), 1);
    }

    #[test]
    fn non_kernel_arguments_are_divergent() {
        let mut d = kernel();
        d.values[0].flags = 0;
        let r = analyze(&d, &Options::default()).unwrap();
        assert_eq!(r.class(0), Class::Divergent);
        assert_eq!(r.class(5), Class::Divergent);
    }

    #[test]
    fn temporal_divergence_marks_uses_outside_the_cycle() {
        // entry -> header(1) -> latch(2) -> header | exit(3); %i = phi in header, exit uses %i.
        let mut cmp = val(ValueKind::ICmp, Some(2), 1, vec![V(2), V(0)]);
        cmp.aux = 36;
        let d = FunctionDesc {
            name: "loop".into(),
            is_kernel: true,
            reqntid: Some(vec![64]),
            values: vec![
                special_val(special::TID_X, 0),                                   // 0
                val(ValueKind::Phi, Some(1), 32, vec![Int(0), B(0), V(3), B(2)]), // 1: i
                val(ValueKind::Add, Some(1), 32, vec![V(1), Int(1)]),             // 2: i+1
                val(ValueKind::Copy, Some(2), 32, vec![V(2)]),                    // 3
                cmp,                                                              // 4
                val(ValueKind::Add, Some(3), 32, vec![V(2), Int(0)]),             // 5: use outside
            ],
            blocks: vec![
                BlockDesc {
                    succs: vec![1],
                    cycle: None,
                    branch: BranchDesc::None,
                },
                BlockDesc {
                    succs: vec![2],
                    cycle: Some(0),
                    branch: BranchDesc::None,
                },
                BlockDesc {
                    succs: vec![1, 3],
                    cycle: Some(0),
                    branch: BranchDesc::On(4),
                },
                BlockDesc {
                    succs: vec![],
                    cycle: None,
                    branch: BranchDesc::None,
                },
            ],
            cycles: vec![CycleData {
                header: 1,
                parent: None,
                depth: 1,
                reducible: true,
                exits: vec![3],
            }],
        };
        let r = analyze(&d, &Options::default()).unwrap();
        assert_eq!(r.class(1).to_string(), "uniform scope=block");
        assert_eq!(r.class(2).to_string(), "uniform scope=block");
        assert_eq!(r.class(5), Class::Divergent);
    }

    #[test]
    fn malformed_descriptions_are_errors() {
        let mut d = kernel();
        d.values[5].operands.push(V(99));
        assert!(matches!(
            analyze(&d, &Options::default()),
            Err(DivergenceError::BadDescription(_))
        ));
        let mut d = kernel();
        d.blocks[0].succs.push(7);
        assert!(analyze(&d, &Options::default()).is_err());
        assert!(analyze(&FunctionDesc::default(), &Options::default()).is_ok());
    }

    #[test]
    fn rpo() {
        assert_eq!(
            reverse_post_order(&[vec![1, 2], vec![3], vec![3], vec![]]),
            vec![0, 2, 1, 3]
        );
        assert!(reverse_post_order(&[]).is_empty());
    }
}

//! Pre-decoding: turns each function of a PTX module into a compact, directly executable form
//! ([`DFunc`]): one [`DInst`] per instruction in layout order, with registers as frame indices,
//! immediates converted to the operation's type, symbols resolved to addresses or frame slots,
//! branch targets and reconvergence points (immediate post-dominators, from
//! [`crate::machine::dominators::PostDomTree`]) resolved to instruction positions.
//!
//! Decoding happens once per run, before any thread starts. It never fails on an instruction:
//! anything the emulator does not implement becomes [`DInst::Unsupported`] with the reason, and
//! the run stops with `unsupported instruction … at file:line` only if a thread executes it.
//!
//! Instruction semantics follow PTX ISA 8.x chapter 9.7; the mapping from each opcode and its
//! modifiers to domain operations ([`Op`]) is in [`decode_inst`].

use std::collections::HashMap;

use crate::machine::cfg::Cfg;
use crate::machine::dominators::PostDomTree;
use crate::ptx::ir::{
    AddrBase, Body, FuncKind, Function, Imm, Init, Inst, InstData, Item, Label, Modifier, Module,
    Opcode, Operand, SpecialOperand, SpecialReg, StateSpace, Stmt, Type, Variable,
};

use super::cluster::ClusterSreg;
use super::domain::{Approx, Cmp, CvtSpec, FMods, FTy, NumTy, Op, PrmtMode, Space, TestP};
use super::float::{self, Rnd};
use super::memory::{GlobalMem, CODE_BASE, CONST_BASE, SHARED_BASE};
use super::tensor::MmaSpec;
use super::wgmma::WgmmaSpec;

mod matrix;
mod mbarrier;
pub use matrix::{CpFill, WgmmaA};
pub use mbarrier::{MbarOp, TensorCopy};

/// "No reconvergence point": paths only meet at the exit.
pub const NO_RPC: u32 = u32::MAX;

/// A special register read by a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sreg {
    /// `%tid.{x,y,z}`
    Tid(u8),
    /// `%ntid.{x,y,z}`
    Ntid(u8),
    /// `%ctaid.{x,y,z}`
    Ctaid(u8),
    /// `%nctaid.{x,y,z}`
    Nctaid(u8),
    /// `%laneid`
    Laneid,
    /// `%warpid`
    Warpid,
    /// `%nwarpid`
    Nwarpid,
    /// `%lanemask_eq`
    LanemaskEq,
    /// `%lanemask_le`
    LanemaskLe,
    /// `%lanemask_lt`
    LanemaskLt,
    /// `%lanemask_ge`
    LanemaskGe,
    /// `%lanemask_gt`
    LanemaskGt,
    /// `%clock` (low 32 bits of the warp's instruction counter)
    Clock,
    /// `%clock_hi`
    ClockHi,
    /// `%clock64`
    Clock64,
    /// `%globaltimer` (the instruction counter times 32 "nanoseconds")
    Globaltimer,
    /// `%globaltimer_lo`
    GlobaltimerLo,
    /// `%globaltimer_hi`
    GlobaltimerHi,
    /// `%dynamic_smem_size`
    DynSmem,
    /// `%total_smem_size`
    TotalSmem,
    /// A constant (`%smid` = 0, `%nsmid` = 1, `WARP_SZ` = 32, …).
    Const(u64),
    /// A cluster register (from the launch's cluster shape).
    Cluster(ClusterSreg),
}

impl Sreg {
    /// The PTX name, for symbolic domains.
    pub fn name(self) -> &'static str {
        match self {
            Sreg::Tid(0) => "%tid.x",
            Sreg::Tid(1) => "%tid.y",
            Sreg::Tid(_) => "%tid.z",
            Sreg::Ctaid(0) => "%ctaid.x",
            Sreg::Ctaid(1) => "%ctaid.y",
            Sreg::Ctaid(_) => "%ctaid.z",
            Sreg::Ntid(_) => "%ntid",
            Sreg::Nctaid(_) => "%nctaid",
            Sreg::Laneid => "%laneid",
            Sreg::Warpid => "%warpid",
            _ => "special",
        }
    }
}

/// An operand that produces a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A register of the frame.
    Reg(u32),
    /// `!%p`: the negation of a predicate register.
    NotReg(u32),
    /// A constant, already in the operation's type.
    Imm(u64),
    /// A special register.
    Sreg(Sreg),
    /// A local-space address relative to the frame's local base (a `.local` variable's address).
    LocalAddr(u64),
    /// `%r+4` outside brackets: a register plus a constant.
    RegOff(u32, i64),
}

/// The base of a decoded address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ABase {
    /// A register's value.
    Reg(u32),
    /// A constant space address.
    Abs(u64),
    /// A local-space address relative to the frame's local base.
    Local(u64),
    /// A `.param` slot of the current frame (byte offset in the frame's parameter area).
    FParam(u32),
}

/// A decoded address `[base + off]` in `space`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    /// The base.
    pub base: ABase,
    /// The constant offset.
    pub off: i64,
    /// How to interpret it.
    pub space: Space,
}

/// An atomic operation (`atom`/`red`, PTX ISA §9.7.13.5–6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomKind {
    /// new = op(old, b)
    Op(Op),
    /// new = (old == b) ? c : old
    Cas,
    /// new = b
    Exch,
}

/// A `bar`/`barrier` operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarOp {
    /// Wait until the barrier completes.
    Sync,
    /// Arrive without waiting.
    Arrive,
    /// `.red.popc.u32`
    RedPopc,
    /// `.red.and.pred`
    RedAnd,
    /// `.red.or.pred`
    RedOr,
}

/// `shfl` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    /// `.up`
    Up,
    /// `.down`
    Down,
    /// `.bfly`
    Bfly,
    /// `.idx`
    Idx,
}

/// `vote` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    /// `.all`
    All,
    /// `.any`
    Any,
    /// `.uni`
    Uni,
    /// `.ballot`
    Ballot,
}

/// `redux.sync` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    /// `.add`
    Add,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// A call argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallArg {
    /// A `.param` slot of the caller's frame (offset, size).
    Slot(u32, u32),
    /// A value (non-ABI calls with register or immediate arguments).
    Value(Src),
}

/// A call's return binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallRet {
    /// A `.param` slot of the caller (offset, size).
    Slot(u32, u32),
    /// A register.
    Reg(u32),
}

/// The callee of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function of the program.
    Direct(u32),
    /// A register holding a function address.
    Indirect(Src),
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub enum DInst {
    /// No effect (fences, prefetches, hints).
    Nop,
    /// `d = a`
    Mov { d: u32, a: Src },
    /// `d = op(a)`
    Op1 { op: Op, d: u32, a: Src },
    /// `d = op(a, b)`
    Op2 { op: Op, d: u32, a: Src, b: Src },
    /// `d = op(a, b, c)`
    Op3 {
        op: Op,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `d = op(a, b, c, e)`
    Op4 { op: Op, d: u32, args: [Src; 4] },
    /// `d = add(mul(a, b), c)` (`mad`, `mad24`), with optional carry in/out through `cc`.
    Mad {
        mul: Op,
        add: Op,
        cout: Option<Op>,
        cin: bool,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `add.cc`/`addc`/`sub.cc`/`subc`: `d = op(a, b, c)`, `cc = cout(a, b, c)` where `c` is the
    /// carry flag (`cin`) or the constant `c0` (0 for `add.cc`, 1 for `sub.cc`).
    Carry {
        op: Op,
        cout: Option<Op>,
        cin: bool,
        c0: u64,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `setp`/`set`: `t = cmp(a, b)`; with a boolean op, `p = t BOP c`, `q = !t BOP c`;
    /// `set` writes `ones`/0 into `d` instead of predicates.
    Setp {
        cmp: Op,
        p: Option<u32>,
        q: Option<u32>,
        a: Src,
        b: Src,
        comb: Option<(Op, Src)>,
        set_true: Option<u64>,
    },
    /// `setp`/`set` on packed halves: `lo`/`hi` compare the halves; `setp` writes the low
    /// half's result to `p` and the high half's to `q`; `set` writes `one` (or 0) into each half
    /// of `d` (`d` in `p`).
    SetpX2 {
        lo: Op,
        hi: Op,
        p: Option<u32>,
        q: Option<u32>,
        a: Src,
        b: Src,
        comb: Option<(Op, Src)>,
        set_one: Option<u64>,
    },
    /// `slct`: `d = cmp(c, 0) ? a : b`.
    Slct {
        cmp: Op,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// Loads (`vec` elements of `size` bytes; `ext` widens each to its register).
    Ld {
        size: u32,
        ext: Option<Op>,
        dsts: Vec<Option<u32>>,
        addr: Addr,
    },
    /// Stores.
    St {
        size: u32,
        srcs: Vec<Src>,
        addr: Addr,
        /// `st.async`: the mbarrier (in the destination CTA) whose transaction count the
        /// stored bytes complete.
        mbar: Option<Addr>,
    },
    /// `atom`/`red`.
    Atom {
        kind: AtomKind,
        size: u32,
        d: Option<u32>,
        addr: Addr,
        b: Src,
        c: Option<Src>,
    },
    /// `cvta` (`to`: generic → space).
    Cvta {
        to: bool,
        space: Space,
        bits: u32,
        d: u32,
        a: Src,
    },
    /// `isspacep`.
    Isspacep { space: Space, d: u32, a: Src },
    /// `mov d, {a, b, …}`: packs parts of `part` bits, first part lowest.
    Pack { d: u32, parts: Vec<Src>, part: u32 },
    /// `mov {a, b, …}, s`: unpacks.
    Unpack {
        ds: Vec<Option<u32>>,
        a: Src,
        part: u32,
    },
    /// `bra`.
    Bra { target: u32, rpc: u32 },
    /// `brx.idx`.
    Brx {
        idx: Src,
        targets: Vec<u32>,
        rpc: u32,
    },
    /// `call`.
    Call {
        callee: Callee,
        args: Vec<CallArg>,
        rets: Vec<CallRet>,
    },
    /// `ret`.
    Ret,
    /// `exit`.
    Exit,
    /// `trap` / `brkpt`.
    Trap,
    /// `bar`/`barrier` (CTA level).
    Bar {
        op: BarOp,
        id: Src,
        count: Option<Src>,
        d: Option<u32>,
        pred: Option<Src>,
    },
    /// `bar.warp.sync`.
    WarpSync { mask: Src },
    /// `shfl.sync`.
    Shfl {
        mode: ShflMode,
        d: u32,
        p: Option<u32>,
        a: Src,
        b: Src,
        c: Src,
        mask: Option<Src>,
    },
    /// `vote`.
    Vote {
        mode: VoteMode,
        d: u32,
        pred: Src,
        mask: Option<Src>,
    },
    /// `match.any/all.sync`.
    Match {
        all: bool,
        bits: u32,
        d: u32,
        p: Option<u32>,
        a: Src,
        mask: Src,
    },
    /// `redux.sync`.
    Redux {
        op: ReduxOp,
        signed: bool,
        d: u32,
        a: Src,
        mask: Src,
    },
    /// `activemask`.
    Activemask { d: u32 },
    /// `alloca`: `size` bytes (per lane; the warp takes the largest) on the thread's local
    /// stack, aligned to `align` bytes; `d` gets their local address.
    Alloca { d: u32, size: Src, align: u64 },
    /// `barrier.cluster.arrive` (`wait` false) or `.wait` (`.relaxed`, `.aligned` accepted): the
    /// barrier of all threads of the cluster.
    ClusterBar { wait: bool },
    /// `mapa`: the address of the same shared-memory location in CTA `rank` of the cluster
    /// (a `.shared::cluster` address, or a generic one when `generic`).
    Mapa {
        d: u32,
        a: Src,
        rank: Src,
        generic: bool,
    },
    /// `getctarank`: the rank of the CTA whose shared memory address `a` names.
    Getctarank { d: u32, a: Src, generic: bool },
    /// `stacksave`: `d` gets the local stack pointer.
    StackSave { d: u32 },
    /// `stackrestore`: the local stack pointer becomes `a` (a value `stacksave` gave).
    StackRestore { a: Src },
    /// `elect.sync`.
    Elect {
        d: Option<u32>,
        p: Option<u32>,
        mask: Src,
    },
    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.b16`: one destination per 8×8 matrix.
    Ldmatrix {
        trans: bool,
        dsts: Vec<Option<u32>>,
        addr: Addr,
    },
    /// `stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.b16`: one source per 8×8 matrix.
    Stmatrix {
        trans: bool,
        srcs: Vec<Src>,
        addr: Addr,
    },
    /// `mma.sync.aligned`: `d = a·b + c` on the warp's fragments.
    Mma {
        spec: Box<MmaSpec>,
        d: Vec<Option<u32>>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `wgmma.mma_async.sync.aligned`: this warp's 16 rows of `d = a·b (+ d)`.
    Wgmma {
        spec: Box<WgmmaSpec>,
        d: Vec<Option<u32>>,
        a: WgmmaA,
        b: Src,
        scale_d: Src,
        neg: (bool, bool),
        trans: (bool, bool),
    },
    /// `cp.async.{ca,cg}.shared.global`: an asynchronous copy of `size` bytes.
    CpAsync {
        size: u32,
        fill: CpFill,
        dst: Addr,
        src: Addr,
    },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.mbarrier.arrive{.noinc}`: the thread's copies complete, then (`.noinc`) one
    /// arrival on the mbarrier (without `.noinc` the pending count is raised by one first, so the
    /// arrival changes nothing).
    CpAsyncMbarArrive { noinc: bool, addr: Addr },
    /// `mbarrier.<op>` on the 64-bit object at `addr` (`d`: the state or the wait's predicate;
    /// `a`: the count, transaction bytes, state or parity operand).
    Mbarrier {
        op: MbarOp,
        d: Option<u32>,
        addr: Addr,
        a: Option<Src>,
    },
    /// `mbarrier.pending_count d, state`.
    MbarPending { d: u32, a: Src },
    /// `cp.async.bulk` of `size` bytes between global and shared memory; into shared memory it
    /// completes `size` transaction bytes on the `mbar` object.
    BulkCopy {
        dst: Addr,
        src: Addr,
        size: Src,
        mbar: Option<Addr>,
    },
    /// `cp.async.bulk.tensor` in tile mode.
    TensorCopy(Box<TensorCopy>),
    /// `cp.async.wait_group keep` (`wait_all`: commit first, then wait for everything).
    CpAsyncWait { keep: u32, commit: bool },
    /// Not implemented: stops the run when executed.
    Unsupported { why: String },
}

/// One decoded instruction with its guard and its origin.
#[derive(Clone, Debug)]
pub struct DecodedInst {
    /// What it does.
    pub kind: DInst,
    /// `@%p` (register, negated).
    pub guard: Option<(u32, bool)>,
    /// The IR instruction it came from.
    pub inst: Inst,
    /// Its source line.
    pub line: u32,
}

/// A `.param` slot: byte offset and size in a frame's parameter area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Byte offset.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// For `.reg`-space parameters and results of a `.func` (the non-ABI form): the callee's
    /// register that holds the value instead of a slot.
    pub reg: Option<u32>,
}

/// A kernel parameter in the parameter block.
#[derive(Clone, Debug)]
pub struct KParam {
    /// Its name.
    pub name: String,
    /// Byte offset in the block.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Declared type (element type for byte arrays).
    pub ty: Type,
    /// True for `.ptr` parameters.
    pub is_ptr: bool,
}

/// A decoded function.
#[derive(Clone, Debug)]
pub struct DFunc {
    /// The name.
    pub name: String,
    /// Index of the function among the module's items.
    pub item: usize,
    /// True for `.entry`.
    pub is_kernel: bool,
    /// False for declarations without a body.
    pub has_body: bool,
    /// The code in layout order.
    pub code: Vec<DecodedInst>,
    /// Registers (the last one is the carry flag `CC.CF`).
    pub nregs: u32,
    /// The carry-flag register.
    pub cc_reg: u32,
    /// Width in bits of each register.
    pub reg_bits: Vec<u8>,
    /// Bytes of `.local` variables per thread.
    pub local_size: u64,
    /// Bytes of `.param` slots per thread (parameters, return values, call-sequence variables).
    pub param_size: u32,
    /// Parameter slots (`.func`).
    pub params: Vec<Slot>,
    /// Return slots (`.func`).
    pub rets: Vec<Slot>,
    /// Kernel parameters (`.entry`).
    pub kparams: Vec<KParam>,
    /// Size of the kernel parameter block.
    pub kparam_size: u64,
}

/// A decoded module with its initial memory.
#[derive(Clone, Debug)]
pub struct Program<'m> {
    /// The module.
    pub module: &'m Module,
    /// The file name used in messages.
    pub file: String,
    /// Every function (bodies decoded).
    pub funcs: Vec<DFunc>,
    /// Function index by name.
    pub by_name: HashMap<String, u32>,
    /// Global memory with the module's `.global` variables allocated and initialised.
    pub globals: GlobalMem,
    /// Names of the module `.global` variables with their allocation index.
    pub global_vars: Vec<(String, u32)>,
    /// The constant bank.
    pub const_bank: Vec<u8>,
    /// Module `.const` variables: name, offset in the bank, size.
    pub const_vars: Vec<(String, u64, u64)>,
    /// Bytes of static shared memory per CTA.
    pub shared_static: u64,
    /// Offset where dynamic shared memory starts (aligned after the static part).
    pub dyn_smem_offset: u64,
}

/// Where a symbol lives.
#[derive(Clone, Copy, Debug)]
enum Sym {
    Global(u64),
    Shared(u64),
    Const(u64),
    KParam(u64),
    Local(u64),
    FParam(Slot),
    Func(u32),
}

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

fn var_align(v: &Variable) -> u64 {
    u64::from(
        v.align
            .unwrap_or_else(|| v.ty.bytes() * u32::from(v.vec.unwrap_or(1))),
    )
    .max(1)
}

fn space_of(s: StateSpace) -> Option<Space> {
    Some(match s {
        StateSpace::Global => Space::Global,
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster => Space::Shared,
        StateSpace::Local => Space::Local,
        StateSpace::Const => Space::Const,
        StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc => Space::Param,
        _ => return None,
    })
}

/// Serialises an initialiser into `out` (element type `ty`), resolving symbol addresses with
/// `addr_of`. Returns an error message for what cannot be encoded.
fn encode_init(
    init: &Init,
    ty: Type,
    out: &mut Vec<u8>,
    addr_of: &dyn Fn(&str, bool) -> Option<u64>,
) -> Result<(), String> {
    match init {
        Init::List(items) => {
            for i in items {
                encode_init(i, ty, out, addr_of)?;
            }
            Ok(())
        }
        Init::Imm(imm) => {
            let bits = imm_bits(imm, ty);
            out.extend_from_slice(&bits.to_le_bytes()[..ty.bytes() as usize]);
            Ok(())
        }
        Init::Sym {
            name,
            generic,
            offset,
        } => {
            let a = addr_of(name, *generic).ok_or_else(|| format!("unknown symbol `{name}`"))?;
            let v = a.wrapping_add(*offset as u64);
            out.extend_from_slice(&v.to_le_bytes()[..ty.bytes().min(8) as usize]);
            Ok(())
        }
    }
}

/// The float type of a PTX type, if it is one the emulator computes with.
pub fn fty(t: Type) -> Option<FTy> {
    Some(match t {
        Type::F16 => FTy::F16,
        Type::Bf16 => FTy::Bf16,
        Type::F32 => FTy::F32,
        Type::F64 => FTy::F64,
        Type::F16x2 => FTy::F16x2,
        Type::Bf16x2 => FTy::Bf16x2,
        _ => return None,
    })
}

/// An immediate's bits in type `ty` (floats converted between widths, integers truncated).
pub fn imm_bits(imm: &Imm, ty: Type) -> u64 {
    let mask = if ty.bits() >= 64 {
        u64::MAX
    } else {
        (1u64 << ty.bits()) - 1
    };
    let as_f64 = |imm: &Imm| -> f64 {
        match imm {
            Imm::F32(b) => f64::from(f32::from_bits(*b)),
            Imm::F64(b) => f64::from_bits(*b),
            Imm::FloatDec(s) => s.parse::<f64>().unwrap_or(f64::NAN),
            Imm::Int { value, unsigned } => {
                if *unsigned {
                    *value as u64 as f64
                } else {
                    *value as f64
                }
            }
            Imm::Hex { value, .. } => *value as f64,
        }
    };
    match fty(ty) {
        Some(FTy::F32) => match imm {
            Imm::F32(b) => u64::from(*b),
            Imm::Hex { value, .. } => value & mask,
            other => float::from_f64(as_f64(other), float::F32, Rnd::Rn),
        },
        Some(FTy::F64) => match imm {
            Imm::F64(b) => *b,
            Imm::Hex { value, .. } => *value,
            other => as_f64(other).to_bits(),
        },
        Some(f @ (FTy::F16 | FTy::Bf16)) => match imm {
            Imm::Hex { value, .. } => value & mask,
            other => float::from_f64(as_f64(other), super::concrete::fmt_of(f), Rnd::Rn),
        },
        _ => imm.bits() & mask,
    }
}

struct Ctx<'a> {
    body: &'a Body,
    scopes: Vec<HashMap<String, Sym>>,
    module_syms: &'a HashMap<String, Sym>,
    label_pc: &'a [u32],
    tables: &'a HashMap<Label, Vec<Label>>,
    reg_bits: &'a [u8],
    bad_regs: &'a [bool],
}

type DResult<T> = Result<T, String>;

impl Ctx<'_> {
    fn lookup(&self, name: &str) -> Option<Sym> {
        for s in self.scopes.iter().rev() {
            if let Some(x) = s.get(name) {
                return Some(*x);
            }
        }
        self.module_syms.get(name).copied()
    }

    fn reg(&self, op: &Operand) -> DResult<u32> {
        match op {
            Operand::Reg(r) => {
                if self.bad_regs.get(r.index()).copied().unwrap_or(true) {
                    return Err(format!(
                        "register `{}` has a vector or 128-bit type",
                        self.body.reg_name(*r)
                    ));
                }
                Ok(r.0)
            }
            other => Err(format!("expected a register, found {other:?}")),
        }
    }

    fn dst(&self, op: &Operand) -> DResult<Option<u32>> {
        match op {
            Operand::Sink => Ok(None),
            other => self.reg(other).map(Some),
        }
    }

    fn src(&self, op: &Operand, ty: Type) -> DResult<Src> {
        Ok(match op {
            Operand::Reg(_) => Src::Reg(self.reg(op)?),
            Operand::NotReg(r) => Src::NotReg(self.reg(&Operand::Reg(*r))?),
            Operand::RegOffset(r, off) => Src::RegOff(self.reg(&Operand::Reg(*r))?, *off),
            Operand::Imm(imm) => Src::Imm(imm_bits(imm, ty)),
            Operand::Special(s) => Src::Sreg(special(s)?),
            Operand::Sym(name) => self.sym_value(name, 0)?,
            Operand::SymOffset(name, off) => self.sym_value(name, *off)?,
            other => return Err(format!("unsupported operand {other:?}")),
        })
    }

    /// The value of a symbol used as an operand: its address in its own state space.
    fn sym_value(&self, name: &str, off: i64) -> DResult<Src> {
        let add = |v: u64| Src::Imm(v.wrapping_add(off as u64));
        Ok(match self.lookup(name) {
            Some(Sym::Global(a)) | Some(Sym::Shared(a)) | Some(Sym::Const(a)) => add(a),
            Some(Sym::KParam(a)) => add(a),
            Some(Sym::Local(a)) => Src::LocalAddr(a.wrapping_add(off as u64)),
            Some(Sym::Func(i)) => add(CODE_BASE + 16 * u64::from(i)),
            Some(Sym::FParam(_)) => {
                return Err(format!(
                    "the address of the function parameter `{name}` is not supported"
                ))
            }
            None => return Err(format!("unknown symbol `{name}`")),
        })
    }

    fn addr(&self, op: &Operand, space: Space) -> DResult<Addr> {
        let Operand::Addr(a) = op else {
            return Err(format!("expected an address, found {op:?}"));
        };
        match &a.base {
            AddrBase::Reg(r) => Ok(Addr {
                base: ABase::Reg(self.reg(&Operand::Reg(*r))?),
                off: a.offset,
                space,
            }),
            AddrBase::None => Ok(Addr {
                base: ABase::Abs(a.offset as u64),
                off: 0,
                space,
            }),
            AddrBase::Sym(name) => {
                let sym = self
                    .lookup(name)
                    .ok_or_else(|| format!("unknown symbol `{name}`"))?;
                let (base, sp) = match sym {
                    Sym::Global(x) => (ABase::Abs(x), Space::Global),
                    Sym::Shared(x) => (ABase::Abs(x), Space::Shared),
                    Sym::Const(x) => (ABase::Abs(x), Space::Const),
                    Sym::KParam(x) => (ABase::Abs(x), Space::Param),
                    Sym::Local(x) => (ABase::Local(x), Space::Local),
                    Sym::FParam(s) => (ABase::FParam(s.offset), Space::Param),
                    Sym::Func(_) => return Err(format!("`{name}` is a function")),
                };
                if space != Space::Generic && space != sp {
                    return Err(format!(
                        "`{name}` is in the {} space, the instruction addresses {}",
                        super::memory::space_name(sp),
                        super::memory::space_name(space)
                    ));
                }
                Ok(Addr {
                    base,
                    off: a.offset,
                    space: sp,
                })
            }
        }
    }

    fn label_pc(&self, l: Label) -> DResult<u32> {
        self.label_pc
            .get(l.index())
            .copied()
            .filter(|&p| p != u32::MAX)
            .ok_or_else(|| format!("label `{}` is not defined", self.body.label_name(l)))
    }
}

fn special(s: &SpecialOperand) -> DResult<Sreg> {
    let SpecialOperand::Named(r, comp) = s else {
        return Err(format!("special register {s:?} is not supported"));
    };
    let c = comp.map_or(0u8, |c| match c {
        crate::ptx::ir::Component::X => 0,
        crate::ptx::ir::Component::Y => 1,
        crate::ptx::ir::Component::Z => 2,
        crate::ptx::ir::Component::W => 3,
    });
    if c > 2 {
        return Err("component .w of a special register".into());
    }
    use SpecialReg::*;
    Ok(match r {
        Tid => Sreg::Tid(c),
        Ntid => Sreg::Ntid(c),
        Ctaid => Sreg::Ctaid(c),
        Nctaid => Sreg::Nctaid(c),
        Laneid => Sreg::Laneid,
        Warpid => Sreg::Warpid,
        Nwarpid => Sreg::Nwarpid,
        LanemaskEq => Sreg::LanemaskEq,
        LanemaskLe => Sreg::LanemaskLe,
        LanemaskLt => Sreg::LanemaskLt,
        LanemaskGe => Sreg::LanemaskGe,
        LanemaskGt => Sreg::LanemaskGt,
        Clock => Sreg::Clock,
        ClockHi => Sreg::ClockHi,
        Clock64 => Sreg::Clock64,
        Globaltimer => Sreg::Globaltimer,
        GlobaltimerLo => Sreg::GlobaltimerLo,
        GlobaltimerHi => Sreg::GlobaltimerHi,
        Smid | Gridid => Sreg::Const(0),
        Nsmid => Sreg::Const(1),
        WarpSz => Sreg::Const(32),
        IsExplicitCluster => Sreg::Cluster(ClusterSreg::IsExplicit),
        ClusterCtarank => Sreg::Cluster(ClusterSreg::CtaRank),
        ClusterNctarank => Sreg::Cluster(ClusterSreg::NctaRank),
        ClusterCtaid => Sreg::Cluster(ClusterSreg::Ctaid(c)),
        ClusterNctaid => Sreg::Cluster(ClusterSreg::Nctaid(c)),
        Clusterid => Sreg::Cluster(ClusterSreg::ClusterId(c)),
        Nclusterid => Sreg::Cluster(ClusterSreg::NclusterId(c)),
        DynamicSmemSize => Sreg::DynSmem,
        TotalSmemSize | AggrSmemSize => Sreg::TotalSmem,
        other => {
            return Err(format!(
                "special register {} is not supported",
                other.as_str()
            ))
        }
    })
}

fn words(inst: &InstData) -> impl Iterator<Item = &str> {
    inst.mods.iter().filter_map(|m| match m {
        Modifier::Word(w) => Some(&**w),
        _ => None,
    })
}

fn rnd_of(inst: &InstData) -> (Option<Rnd>, bool) {
    for w in words(inst) {
        let r = match w {
            "rn" => (Rnd::Rn, false),
            "rz" => (Rnd::Rz, false),
            "rm" => (Rnd::Rm, false),
            "rp" => (Rnd::Rp, false),
            "rna" => (Rnd::Rna, false),
            "rni" => (Rnd::Rn, true),
            "rzi" => (Rnd::Rz, true),
            "rmi" => (Rnd::Rm, true),
            "rpi" => (Rnd::Rp, true),
            _ => continue,
        };
        return (Some(r.0), r.1);
    }
    (None, false)
}

fn fmods(inst: &InstData) -> FMods {
    FMods {
        rnd: rnd_of(inst).0.unwrap_or(Rnd::Rn),
        ftz: inst.has_word("ftz"),
        sat: inst.has_word("sat"),
    }
}

fn int_ty(t: Type) -> DResult<(u32, bool)> {
    use Type::*;
    match t {
        B8 | U8 | S8 | B16 | U16 | S16 | B32 | U32 | S32 | B64 | U64 | S64 => {
            Ok((t.bits(), t.is_signed()))
        }
        Pred => Ok((1, false)),
        other => Err(format!("type .{other} is not supported here")),
    }
}

fn num_ty(t: Type) -> DResult<NumTy> {
    if let Some(f) = fty(t) {
        return Ok(NumTy::Float(f));
    }
    let (bits, signed) = int_ty(t)?;
    Ok(NumTy::Int { bits, signed })
}

fn operand(inst: &InstData, i: usize) -> DResult<&Operand> {
    inst.operands
        .get(i)
        .ok_or_else(|| format!("missing operand {}", i + 1))
}

fn inst_space(inst: &InstData) -> DResult<Space> {
    match inst.space() {
        None => Ok(Space::Generic),
        Some(s) => space_of(s).ok_or_else(|| format!("state space .{s} is not supported")),
    }
}

/// `mapa{.shared::cluster}.type d, a, rank` and `getctarank{.shared::cluster}.type d, a` (PTX ISA
/// 7.8): without a state space the addresses are generic.
fn decode_cluster_address(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let t = need_ty(inst)?;
    let generic = match inst.space() {
        None => true,
        Some(StateSpace::SharedCluster) => false,
        Some(s) => return Err(format!("`{}` in state space .{s}", inst.opcode.as_str())),
    };
    let d = ctx.reg(operand(inst, 0)?)?;
    let a = ctx.src(operand(inst, 1)?, t)?;
    Ok(match inst.opcode {
        Opcode::Mapa => DInst::Mapa {
            d,
            a,
            rank: ctx.src(operand(inst, 2)?, Type::U32)?,
            generic,
        },
        _ => DInst::Getctarank { d, a, generic },
    })
}

/// The minimum alignment `alloca` guarantees (PTX ISA, "alloca": 8 bytes).
const ALLOCA_MIN_ALIGN: u64 = 8;

/// The dynamic stack: `alloca.type ptr, size{, immAlign}`, `stacksave.type d`,
/// `stackrestore.type a` (PTX ISA 7.3, "Stack manipulation instructions").
fn decode_stack(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let t = need_ty(inst)?;
    if !matches!(t, Type::U32 | Type::U64) {
        return Err(format!("`{}` with type {t:?}", inst.opcode.as_str()));
    }
    let op = |i: usize| operand(inst, i);
    Ok(match inst.opcode {
        Opcode::Alloca => {
            let align = match inst.operands.get(2) {
                None => ALLOCA_MIN_ALIGN,
                Some(Operand::Imm(imm)) => imm_bits(imm, Type::U32),
                Some(other) => return Err(format!("alloca alignment {other:?} is not a constant")),
            };
            if !align.is_power_of_two() || align > 1 << 23 {
                return Err(format!(
                    "alloca alignment {align} is not a power of two up to 2^23"
                ));
            }
            DInst::Alloca {
                d: ctx.reg(op(0)?)?,
                size: ctx.src(op(1)?, t)?,
                align: align.max(ALLOCA_MIN_ALIGN),
            }
        }
        Opcode::Stacksave => DInst::StackSave {
            d: ctx.reg(op(0)?)?,
        },
        _ => DInst::StackRestore {
            a: ctx.src(op(0)?, t)?,
        },
    })
}

/// Splits `p|q` or `p` into (p, q).
fn pair(ctx: &Ctx, op: &Operand) -> DResult<(Option<u32>, Option<u32>)> {
    match op {
        Operand::Pair(a, b) => Ok((ctx.dst(a)?, ctx.dst(b)?)),
        other => Ok((ctx.dst(other)?, None)),
    }
}

/// Decodes one instruction (everything but the guard): routes it by family.
fn decode_inst(
    ctx: &Ctx,
    inst: &InstData,
    rpc: u32,
    funcs: &HashMap<String, u32>,
) -> DResult<DInst> {
    use Opcode::*;
    match &inst.opcode {
        Add | Sub | Addc | Subc | Mul | Mad | Madc | Mul24 | Mad24 | Sad | Div | Rem | Abs
        | Neg | Min | Max => decode_arith(ctx, inst),
        Popc | Clz | Brev | Bfind | Bfe | Bfi | Szext | Bmsk | Dp4a | Dp2a | And | Or | Xor
        | Not | Cnot | Lop3 | Shf | Shl | Shr | Prmt => decode_bits(ctx, inst),
        Testp | Copysign | Fma | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => {
            decode_float(ctx, inst)
        }
        Setp | Set | Selp | Slct => decode_compare(ctx, inst),
        Mov | Cvt | Cvta | Isspacep | Ld | Ldu | St | Atom | Red | Prefetch | Prefetchu
        | Membar | Fence | Nanosleep | Pmevent | Griddepcontrol | Setmaxnreg => {
            decode_data(ctx, inst)
        }
        Bra | Brx | Call | Ret | Exit | Trap | Brkpt | Bar | Barrier => {
            decode_control(ctx, inst, rpc, funcs)
        }
        Vote | Match | Activemask | Redux | Elect | Shfl => decode_collective(ctx, inst),
        Ldmatrix => matrix::decode_ldmatrix(ctx, inst),
        Stmatrix => matrix::decode_stmatrix(ctx, inst),
        Mma => matrix::decode_mma(ctx, inst),
        Wgmma => matrix::decode_wgmma(ctx, inst),
        Cp => matrix::decode_cp(ctx, inst),
        Createpolicy => matrix::decode_createpolicy(ctx, inst),
        Mbarrier => mbarrier::decode_mbarrier(ctx, inst),
        Alloca | Stacksave | Stackrestore => decode_stack(ctx, inst),
        Mapa | Getctarank => decode_cluster_address(ctx, inst),
        other => Err(format!("`{}` is not implemented", other.as_str())),
    }
}

/// The instruction's type modifier, which its decoder requires.
fn need_ty(inst: &InstData) -> DResult<Type> {
    inst.ty().ok_or_else(|| "missing type modifier".to_string())
}

/// The error for an instruction routed to a decoder of another family.
fn misrouted(opcode: &Opcode, family: &str) -> String {
    format!("internal: `{}` was decoded as {family}", opcode.as_str())
}

/// Decodes the integer and floating-point add, multiply, divide and their forms (`add`/`sub` with
/// `.cc`, `addc`, `mul`, `mad`, `mul24`, `sad`, `div`/`rem`, `abs`/`neg`, `min`/`max`).
fn decode_arith(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    use Opcode::*;
    let op = |i| operand(inst, i);
    Ok(match &inst.opcode {
        Add | Sub => {
            let t = need_ty(inst)?;
            if let Some(f) = fty(t) {
                let m = fmods(inst);
                let o = if inst.opcode == Add {
                    Op::FAdd { ty: f, m }
                } else {
                    Op::FSub { ty: f, m }
                };
                DInst::Op2 {
                    op: o,
                    d: ctx.reg(op(0)?)?,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                }
            } else {
                let (bits, _) = int_ty(t)?;
                let add = inst.opcode == Add;
                if inst.has_word("cc") {
                    DInst::Carry {
                        op: if add {
                            Op::AddC { bits }
                        } else {
                            Op::SubC { bits }
                        },
                        cout: Some(if add {
                            Op::CarryOut { bits }
                        } else {
                            Op::SubCarryOut { bits }
                        }),
                        cin: false,
                        c0: u64::from(!add),
                        d: ctx.reg(op(0)?)?,
                        a: ctx.src(op(1)?, t)?,
                        b: ctx.src(op(2)?, t)?,
                    }
                } else {
                    let sat = inst.has_word("sat");
                    DInst::Op2 {
                        op: if add {
                            Op::Add { bits, sat }
                        } else {
                            Op::Sub { bits, sat }
                        },
                        d: ctx.reg(op(0)?)?,
                        a: ctx.src(op(1)?, t)?,
                        b: ctx.src(op(2)?, t)?,
                    }
                }
            }
        }
        Addc | Subc => {
            let t = need_ty(inst)?;
            let (bits, _) = int_ty(t)?;
            let add = inst.opcode == Addc;
            DInst::Carry {
                op: if add {
                    Op::AddC { bits }
                } else {
                    Op::SubC { bits }
                },
                cout: inst.has_word("cc").then_some(if add {
                    Op::CarryOut { bits }
                } else {
                    Op::SubCarryOut { bits }
                }),
                cin: true,
                c0: 0,
                d: ctx.reg(op(0)?)?,
                a: ctx.src(op(1)?, t)?,
                b: ctx.src(op(2)?, t)?,
            }
        }
        Mul => {
            let t = need_ty(inst)?;
            let d = ctx.reg(op(0)?)?;
            if let Some(f) = fty(t) {
                DInst::Op2 {
                    op: Op::FMul {
                        ty: f,
                        m: fmods(inst),
                    },
                    d,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                }
            } else {
                let (bits, signed) = int_ty(t)?;
                let o = if inst.has_word("hi") {
                    Op::MulHi { bits, signed }
                } else if inst.has_word("wide") {
                    Op::MulWide { bits, signed }
                } else {
                    Op::MulLo { bits }
                };
                DInst::Op2 {
                    op: o,
                    d,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                }
            }
        }
        Mad | Madc => {
            let t = need_ty(inst)?;
            let d = ctx.reg(op(0)?)?;
            if let Some(f) = fty(t) {
                DInst::Op3 {
                    op: Op::FFma {
                        ty: f,
                        m: fmods(inst),
                    },
                    d,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                    c: ctx.src(op(3)?, t)?,
                }
            } else {
                let (bits, signed) = int_ty(t)?;
                let wide = inst.has_word("wide");
                let hi = inst.has_word("hi");
                if hi && inst.has_word("sat") {
                    if bits != 32 || !signed {
                        return Err("mad.hi.sat needs .s32".into());
                    }
                    return Ok(DInst::Op3 {
                        op: Op::MadHiSat,
                        d,
                        a: ctx.src(op(1)?, t)?,
                        b: ctx.src(op(2)?, t)?,
                        c: ctx.src(op(3)?, t)?,
                    });
                }
                let (mul, abits) = if hi {
                    (Op::MulHi { bits, signed }, bits)
                } else if wide {
                    (Op::MulWide { bits, signed }, 2 * bits)
                } else {
                    (Op::MulLo { bits }, bits)
                };
                let ct = if wide {
                    match abits {
                        32 => Type::B32,
                        _ => Type::B64,
                    }
                } else {
                    t
                };
                DInst::Mad {
                    mul,
                    add: Op::AddC { bits: abits },
                    cout: inst.has_word("cc").then_some(Op::CarryOut { bits: abits }),
                    cin: inst.opcode == Madc,
                    d,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                    c: ctx.src(op(3)?, ct)?,
                }
            }
        }
        Mul24 | Mad24 => {
            let t = need_ty(inst)?;
            let (_, signed) = int_ty(t)?;
            if inst.has_word("sat") {
                return Err("mad24.sat is not supported".into());
            }
            let mul = Op::Mul24 {
                hi: inst.has_word("hi"),
                signed,
            };
            let d = ctx.reg(op(0)?)?;
            if inst.opcode == Mul24 {
                DInst::Op2 {
                    op: mul,
                    d,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                }
            } else {
                DInst::Mad {
                    mul,
                    add: Op::AddC { bits: 32 },
                    cout: None,
                    cin: false,
                    d,
                    a: ctx.src(op(1)?, t)?,
                    b: ctx.src(op(2)?, t)?,
                    c: ctx.src(op(3)?, t)?,
                }
            }
        }
        Sad => {
            let t = need_ty(inst)?;
            let (bits, signed) = int_ty(t)?;
            three(ctx, inst, Op::Sad { bits, signed }, [t, t, t])?
        }
        Div | Rem => {
            let t = need_ty(inst)?;
            if let Some(f) = fty(t) {
                if inst.opcode == Rem {
                    return Err("rem on a float type".into());
                }
                let o = if inst.has_word("approx") {
                    if f != FTy::F32 {
                        return Err("div.approx needs .f32".into());
                    }
                    Op::FDivApprox {
                        ftz: inst.has_word("ftz"),
                    }
                } else if inst.has_word("full") {
                    if f != FTy::F32 {
                        return Err("div.full needs .f32".into());
                    }
                    Op::FDivFull {
                        ftz: inst.has_word("ftz"),
                    }
                } else {
                    Op::FDiv {
                        ty: f,
                        m: fmods(inst),
                    }
                };
                two(ctx, inst, o, [t, t])?
            } else {
                let (bits, signed) = int_ty(t)?;
                let o = if inst.opcode == Div {
                    Op::Div { bits, signed }
                } else {
                    Op::Rem { bits, signed }
                };
                two(ctx, inst, o, [t, t])?
            }
        }
        Abs | Neg => {
            let t = need_ty(inst)?;
            let o = if let Some(f) = fty(t) {
                let ftz = inst.has_word("ftz");
                if inst.opcode == Abs {
                    Op::FAbs { ty: f, ftz }
                } else {
                    Op::FNeg { ty: f, ftz }
                }
            } else {
                let (bits, _) = int_ty(t)?;
                if inst.opcode == Abs {
                    Op::AbsI { bits }
                } else {
                    Op::NegI { bits }
                }
            };
            one(ctx, inst, o, t)?
        }
        Min | Max => {
            let t = need_ty(inst)?;
            if inst.has_word("xorsign") || inst.has_word("relu") || inst.operands.len() > 3 {
                return Err("min/max .xorsign/.relu/three-input forms are not supported".into());
            }
            let o = if let Some(f) = fty(t) {
                let ftz = inst.has_word("ftz");
                let nan = inst.has_word("NaN");
                if inst.opcode == Min {
                    Op::FMin { ty: f, ftz, nan }
                } else {
                    Op::FMax { ty: f, ftz, nan }
                }
            } else {
                let (bits, signed) = int_ty(t)?;
                if inst.opcode == Min {
                    Op::MinI { bits, signed }
                } else {
                    Op::MaxI { bits, signed }
                }
            };
            two(ctx, inst, o, [t, t])?
        }
        other => return Err(misrouted(other, "arith")),
    })
}

/// Decodes the bit and logic operations (`popc`, `clz`, `brev`, `bfind`, `bfe`, `bfi`, `szext`,
/// `bmsk`, `dp4a`/`dp2a`, `and`/`or`/`xor`/`not`/`cnot`, `lop3`, `shf`, `shl`/`shr`, `prmt`).
fn decode_bits(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    use Opcode::*;
    let op = |i| operand(inst, i);
    let u32t = Type::U32;
    Ok(match &inst.opcode {
        Popc | Clz | Brev => {
            let t = need_ty(inst)?;
            let (bits, _) = int_ty(t)?;
            let o = match inst.opcode {
                Popc => Op::Popc { bits },
                Clz => Op::Clz { bits },
                _ => Op::Brev { bits },
            };
            one(ctx, inst, o, t)?
        }
        Bfind => {
            let t = need_ty(inst)?;
            let (bits, signed) = int_ty(t)?;
            one(
                ctx,
                inst,
                Op::Bfind {
                    bits,
                    signed,
                    shiftamt: inst.has_word("shiftamt"),
                },
                t,
            )?
        }
        Bfe => {
            let t = need_ty(inst)?;
            let (bits, signed) = int_ty(t)?;
            three(ctx, inst, Op::Bfe { bits, signed }, [t, u32t, u32t])?
        }
        Bfi => {
            let t = need_ty(inst)?;
            let (bits, _) = int_ty(t)?;
            DInst::Op4 {
                op: Op::Bfi { bits },
                d: ctx.reg(op(0)?)?,
                args: [
                    ctx.src(op(1)?, t)?,
                    ctx.src(op(2)?, t)?,
                    ctx.src(op(3)?, u32t)?,
                    ctx.src(op(4)?, u32t)?,
                ],
            }
        }
        Szext => {
            let t = need_ty(inst)?;
            let (_, signed) = int_ty(t)?;
            two(
                ctx,
                inst,
                Op::Szext {
                    signed,
                    clamp: inst.has_word("clamp"),
                },
                [t, u32t],
            )?
        }
        Bmsk => two(
            ctx,
            inst,
            Op::Bmsk {
                clamp: inst.has_word("clamp"),
            },
            [u32t, u32t],
        )?,
        Dp4a | Dp2a => {
            let tys: Vec<Type> = inst.types().collect();
            if tys.len() != 2 {
                return Err("dp4a/dp2a need two types".into());
            }
            let (a_signed, b_signed) = (tys[0].is_signed(), tys[1].is_signed());
            let o = if inst.opcode == Dp4a {
                Op::Dp4a { a_signed, b_signed }
            } else {
                Op::Dp2a {
                    hi: inst.has_word("hi"),
                    a_signed,
                    b_signed,
                }
            };
            three(ctx, inst, o, [Type::B32, Type::B32, Type::B32])?
        }
        And | Or | Xor | Not | Cnot => {
            let t = need_ty(inst)?;
            let (bits, _) = int_ty(t)?;
            match inst.opcode {
                Not => one(ctx, inst, Op::Not { bits }, t)?,
                Cnot => one(ctx, inst, Op::Cnot { bits }, t)?,
                And => two(ctx, inst, Op::And { bits }, [t, t])?,
                Or => two(ctx, inst, Op::Or { bits }, [t, t])?,
                _ => two(ctx, inst, Op::Xor { bits }, [t, t])?,
            }
        }
        Lop3 => {
            if inst.operands.len() != 5 || matches!(op(0)?, Operand::Pair(..)) {
                return Err("lop3 with a predicate output is not supported".into());
            }
            let lut = match op(4)? {
                Operand::Imm(i) => i.bits() as u8,
                _ => return Err("lop3 needs an immediate truth table".into()),
            };
            three(ctx, inst, Op::Lop3 { lut }, [Type::B32; 3])?
        }
        Shf => {
            let left = inst.has_word("l");
            let wrap = inst.has_word("wrap");
            three(
                ctx,
                inst,
                Op::Shf { left, wrap },
                [Type::B32, Type::B32, u32t],
            )?
        }
        Shl | Shr => {
            let t = need_ty(inst)?;
            let (bits, signed) = int_ty(t)?;
            let o = if inst.opcode == Shl {
                Op::Shl { bits }
            } else {
                Op::Shr { bits, signed }
            };
            two(ctx, inst, o, [t, u32t])?
        }
        Prmt => {
            let mode = words(inst)
                .find_map(|w| {
                    Some(match w {
                        "f4e" => PrmtMode::F4e,
                        "b4e" => PrmtMode::B4e,
                        "rc8" => PrmtMode::Rc8,
                        "ecl" => PrmtMode::Ecl,
                        "ecr" => PrmtMode::Ecr,
                        "rc16" => PrmtMode::Rc16,
                        _ => return None,
                    })
                })
                .unwrap_or(PrmtMode::Default);
            three(ctx, inst, Op::Prmt { mode }, [Type::B32; 3])?
        }
        other => return Err(misrouted(other, "bits")),
    })
}

/// Decodes the floating-point-only instructions (`testp`, `copysign`, `fma`, `rcp`/`sqrt`, `rsqrt`
/// and the other approximate functions).
fn decode_float(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    use Opcode::*;
    Ok(match &inst.opcode {
        Testp => {
            let t = need_ty(inst)?;
            let f = fty(t).ok_or("testp needs a float type")?;
            let test = words(inst)
                .find_map(|w| {
                    Some(match w {
                        "finite" => TestP::Finite,
                        "infinite" => TestP::Infinite,
                        "number" => TestP::Number,
                        "notanumber" => TestP::NotANumber,
                        "normal" => TestP::Normal,
                        "subnormal" => TestP::Subnormal,
                        _ => return None,
                    })
                })
                .ok_or("testp without a test")?;
            one(ctx, inst, Op::Testp { ty: f, test }, t)?
        }
        Copysign => {
            let t = need_ty(inst)?;
            let f = fty(t).ok_or("copysign needs a float type")?;
            two(ctx, inst, Op::Copysign { ty: f }, [t, t])?
        }
        Fma => {
            let t = need_ty(inst)?;
            let f = fty(t).ok_or("fma needs a float type")?;
            if inst.has_word("relu") || inst.has_word("oob") {
                return Err("fma .relu/.oob is not supported".into());
            }
            three(
                ctx,
                inst,
                Op::FFma {
                    ty: f,
                    m: fmods(inst),
                },
                [t, t, t],
            )?
        }
        Rcp | Sqrt => {
            let t = need_ty(inst)?;
            let f = fty(t).ok_or("needs a float type")?;
            let o = if inst.has_word("approx") {
                Op::FApprox {
                    f: if inst.opcode == Rcp {
                        Approx::Rcp
                    } else {
                        Approx::Sqrt
                    },
                    ty: f,
                    ftz: inst.has_word("ftz"),
                }
            } else if inst.opcode == Rcp {
                Op::FRcp {
                    ty: f,
                    m: fmods(inst),
                }
            } else {
                Op::FSqrt {
                    ty: f,
                    m: fmods(inst),
                }
            };
            one(ctx, inst, o, t)?
        }
        Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => {
            let t = need_ty(inst)?;
            let f = fty(t).ok_or("needs a float type")?;
            let fun = match inst.opcode {
                Rsqrt => Approx::Rsqrt,
                Sin => Approx::Sin,
                Cos => Approx::Cos,
                Lg2 => Approx::Lg2,
                Ex2 => Approx::Ex2,
                _ => Approx::Tanh,
            };
            one(
                ctx,
                inst,
                Op::FApprox {
                    f: fun,
                    ty: f,
                    ftz: inst.has_word("ftz"),
                },
                t,
            )?
        }
        other => return Err(misrouted(other, "float")),
    })
}

/// Decodes the comparisons and selections (`setp`/`set`, `selp`, `slct`).
fn decode_compare(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    use Opcode::*;
    let op = |i| operand(inst, i);
    Ok(match &inst.opcode {
        Setp | Set => {
            let tys: Vec<Type> = inst.types().collect();
            let (dst_t, src_t) = if inst.opcode == Set {
                if tys.len() != 2 {
                    return Err("set needs two types".into());
                }
                (Some(tys[0]), tys[1])
            } else {
                (None, *tys.last().ok_or("missing type")?)
            };
            let cmp = words(inst)
                .find_map(Cmp::parse)
                .ok_or("missing comparison")?;
            let bop = words(inst).find_map(|w| match w {
                "and" => Some(Op::And { bits: 1 }),
                "or" => Some(Op::Or { bits: 1 }),
                "xor" => Some(Op::Xor { bits: 1 }),
                _ => None,
            });
            let cop = if let Some(f) = fty(src_t) {
                if matches!(f, FTy::F16x2 | FTy::Bf16x2) {
                    let ftz = inst.has_word("ftz");
                    let half = |hi| Op::CmpHalf {
                        cmp,
                        ty: f,
                        hi,
                        ftz,
                    };
                    let comb = match bop {
                        Some(b) => Some((b, ctx.src(op(3)?, Type::Pred)?)),
                        None => None,
                    };
                    let (p, q, set_one) = match dst_t {
                        Some(dt) => {
                            let one = match dt {
                                Type::F16x2 | Type::F16 => 0x3c00,
                                Type::Bf16x2 | Type::Bf16 => 0x3f80,
                                _ => 0xffff,
                            };
                            (Some(ctx.reg(op(0)?)?), None, Some(one))
                        }
                        None => {
                            let (p, q) = pair(ctx, op(0)?)?;
                            (p, q, None)
                        }
                    };
                    return Ok(DInst::SetpX2 {
                        lo: half(false),
                        hi: half(true),
                        p,
                        q,
                        a: ctx.src(op(1)?, src_t)?,
                        b: ctx.src(op(2)?, src_t)?,
                        comb,
                        set_one,
                    });
                }
                Op::CmpF {
                    cmp,
                    ty: f,
                    ftz: inst.has_word("ftz"),
                }
            } else {
                let (bits, signed) = int_ty(src_t)?;
                Op::CmpI { cmp, bits, signed }
            };
            let comb = match bop {
                Some(b) => Some((b, ctx.src(op(3)?, Type::Pred)?)),
                None => None,
            };
            let (p, q, set_true) = if let Some(dt) = dst_t {
                let d = ctx.reg(op(0)?)?;
                let t = if dt == Type::F32 {
                    0x3f80_0000
                } else {
                    0xffff_ffff
                };
                (Some(d), None, Some(t))
            } else {
                let (p, q) = pair(ctx, op(0)?)?;
                (p, q, None)
            };
            DInst::Setp {
                cmp: cop,
                p,
                q,
                a: ctx.src(op(1)?, src_t)?,
                b: ctx.src(op(2)?, src_t)?,
                comb,
                set_true,
            }
        }
        Selp => {
            let t = need_ty(inst)?;
            three(ctx, inst, Op::Select, [t, t, Type::Pred])?
        }
        Slct => {
            let tys: Vec<Type> = inst.types().collect();
            if tys.len() != 2 {
                return Err("slct needs two types".into());
            }
            let (dt, ct) = (tys[0], tys[1]);
            let cmp = if ct == Type::F32 {
                Op::CmpF {
                    cmp: Cmp::Ge,
                    ty: FTy::F32,
                    ftz: inst.has_word("ftz"),
                }
            } else {
                Op::CmpI {
                    cmp: Cmp::Ge,
                    bits: 32,
                    signed: true,
                }
            };
            DInst::Slct {
                cmp,
                d: ctx.reg(op(0)?)?,
                a: ctx.src(op(1)?, dt)?,
                b: ctx.src(op(2)?, dt)?,
                c: ctx.src(op(3)?, ct)?,
            }
        }
        other => return Err(misrouted(other, "compare")),
    })
}

/// Decodes the moves, conversions, address forms and memory accesses (`mov`, `cvt`, `cvta`,
/// `isspacep`, `ld`/`ldu`, `st`, `atom`/`red`, and the hints that change no state).
fn decode_data(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    use Opcode::*;
    let op = |i| operand(inst, i);
    Ok(match &inst.opcode {
        Mov => {
            let t = need_ty(inst)?;
            if t == Type::B128 {
                return Err("mov.b128 is not supported".into());
            }
            match (op(0)?, op(1)?) {
                (Operand::Vector(ds), src) => {
                    let part = t.bits() / ds.len().max(1) as u32;
                    DInst::Unpack {
                        ds: ds.iter().map(|o| ctx.dst(o)).collect::<DResult<_>>()?,
                        a: ctx.src(src, t)?,
                        part,
                    }
                }
                (d, Operand::Vector(parts)) => {
                    let part = t.bits() / parts.len().max(1) as u32;
                    let pt = match part {
                        8 => Type::B8,
                        16 => Type::B16,
                        32 => Type::B32,
                        _ => Type::B64,
                    };
                    DInst::Pack {
                        d: ctx.reg(d)?,
                        parts: parts
                            .iter()
                            .map(|o| ctx.src(o, pt))
                            .collect::<DResult<_>>()?,
                        part,
                    }
                }
                (d, s) => DInst::Mov {
                    d: ctx.reg(d)?,
                    a: ctx.src(s, t)?,
                },
            }
        }
        Cvt => decode_cvt(ctx, inst)?,
        Cvta => {
            let t = need_ty(inst)?;
            let space = inst_space(inst)?;
            DInst::Cvta {
                to: inst.has_word("to"),
                space,
                bits: t.bits(),
                d: ctx.reg(op(0)?)?,
                a: ctx.src(op(1)?, t)?,
            }
        }
        Isspacep => DInst::Isspacep {
            space: inst_space(inst)?,
            d: ctx.reg(op(0)?)?,
            a: ctx.src(op(1)?, Type::U64)?,
        },
        Ld | Ldu => {
            let t = need_ty(inst)?;
            if t.bits() > 64 || t.bits() < 8 {
                return Err(format!("ld .{t} is not supported"));
            }
            let space = inst_space(inst)?;
            let dsts: Vec<Option<u32>> = match op(0)? {
                Operand::Vector(v) => v.iter().map(|o| ctx.dst(o)).collect::<DResult<_>>()?,
                other => vec![ctx.dst(other)?],
            };
            let size = t.bytes();
            // Every destination register must have the same width; widen to it.
            let rbits = dsts
                .iter()
                .flatten()
                .map(|&r| u32::from(ctx.reg_bits[r as usize]))
                .max()
                .unwrap_or(t.bits());
            let ext = (rbits > t.bits()).then_some(Op::Ext {
                from: t.bits(),
                to: rbits,
                signed: t.is_signed(),
            });
            DInst::Ld {
                size,
                ext,
                dsts,
                addr: ctx.addr(op(1)?, space)?,
            }
        }
        St => {
            let t = need_ty(inst)?;
            if t.bits() > 64 || t.bits() < 8 {
                return Err(format!("st .{t} is not supported"));
            }
            let space = inst_space(inst)?;
            let srcs: Vec<Src> = match op(1)? {
                Operand::Vector(v) => v.iter().map(|o| ctx.src(o, t)).collect::<DResult<_>>()?,
                other => vec![ctx.src(other, t)?],
            };
            // `st.async.shared::cluster.mbarrier::complete_tx::bytes`: a store into a CTA of the
            // cluster that completes its bytes on an mbarrier there (PTX ISA 8.1).
            let mbar = if inst.has_word("async") {
                if !inst.has_word("mbarrier::complete_tx::bytes")
                    || inst.space() != Some(StateSpace::SharedCluster)
                {
                    return Err("st.async other than .shared::cluster.mbarrier::complete_tx::bytes is not supported".into());
                }
                Some(ctx.addr(op(2)?, Space::Shared)?)
            } else {
                None
            };
            DInst::St {
                size: t.bytes(),
                srcs,
                addr: ctx.addr(op(0)?, space)?,
                mbar,
            }
        }
        Atom | Red => decode_atom(ctx, inst)?,
        Prefetch | Prefetchu | Membar | Fence | Nanosleep | Pmevent | Griddepcontrol => DInst::Nop,
        Setmaxnreg => {
            // The warp's register budget changes; an emulated warp has every register it
            // names, so no value does. The count must be one the ISA allows.
            match op(0)? {
                Operand::Imm(i) if (24..=256).contains(&i.bits()) && i.bits() % 8 == 0 => {
                    DInst::Nop
                }
                _ => {
                    return Err(
                        "setmaxnreg needs an immediate count, a multiple of 8 in 24..256".into(),
                    )
                }
            }
        }
        other => return Err(misrouted(other, "data")),
    })
}

/// Decodes the control flow and CTA barriers (`bra`, `brx.idx`, `call`, `ret`, `exit`,
/// `trap`/`brkpt`, `bar`/`barrier`).
fn decode_control(
    ctx: &Ctx,
    inst: &InstData,
    rpc: u32,
    funcs: &HashMap<String, u32>,
) -> DResult<DInst> {
    use Opcode::*;
    let op = |i| operand(inst, i);
    Ok(match &inst.opcode {
        Bra => {
            let target = inst
                .operands
                .iter()
                .find_map(|o| match o {
                    Operand::Label(l) => Some(*l),
                    _ => None,
                })
                .ok_or("bra without a label")?;
            DInst::Bra {
                target: ctx.label_pc(target)?,
                rpc,
            }
        }
        Brx => {
            let idx = ctx.src(op(0)?, Type::U32)?;
            let Operand::Label(tl) = op(1)? else {
                return Err("brx.idx needs a .branchtargets label".into());
            };
            let labels = ctx
                .tables
                .get(tl)
                .ok_or("brx.idx: no .branchtargets table with that label")?;
            DInst::Brx {
                idx,
                targets: labels
                    .iter()
                    .map(|l| ctx.label_pc(*l))
                    .collect::<DResult<_>>()?,
                rpc,
            }
        }
        Call => decode_call(ctx, inst, funcs)?,
        Ret => DInst::Ret,
        Exit => DInst::Exit,
        Trap | Brkpt => DInst::Trap,
        Bar | Barrier => decode_bar(ctx, inst)?,
        other => return Err(misrouted(other, "control")),
    })
}

/// Decodes the warp collectives (`vote`, `match`, `activemask`, `redux`, `elect`, `shfl`).
fn decode_collective(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    use Opcode::*;
    let op = |i| operand(inst, i);
    let u32t = Type::U32;
    Ok(match &inst.opcode {
        Vote => {
            let mode = if inst.has_word("all") {
                VoteMode::All
            } else if inst.has_word("any") {
                VoteMode::Any
            } else if inst.has_word("uni") {
                VoteMode::Uni
            } else if inst.has_word("ballot") {
                VoteMode::Ballot
            } else {
                return Err("vote without a mode".into());
            };
            let sync = inst.has_word("sync");
            DInst::Vote {
                mode,
                d: ctx.reg(op(0)?)?,
                pred: ctx.src(op(1)?, Type::Pred)?,
                mask: if sync {
                    Some(ctx.src(op(2)?, u32t)?)
                } else {
                    None
                },
            }
        }
        Match => {
            let t = need_ty(inst)?;
            let all = inst.has_word("all");
            let (d, p) = pair(ctx, op(0)?)?;
            DInst::Match {
                all,
                bits: t.bits(),
                d: d.ok_or("match needs a destination")?,
                p,
                a: ctx.src(op(1)?, t)?,
                mask: ctx.src(op(2)?, u32t)?,
            }
        }
        Activemask => DInst::Activemask {
            d: ctx.reg(op(0)?)?,
        },
        Redux => {
            let t = need_ty(inst)?;
            if fty(t).is_some() {
                return Err("redux.sync on floats is not supported".into());
            }
            let r = words(inst)
                .find_map(|w| {
                    Some(match w {
                        "add" => ReduxOp::Add,
                        "min" => ReduxOp::Min,
                        "max" => ReduxOp::Max,
                        "and" => ReduxOp::And,
                        "or" => ReduxOp::Or,
                        "xor" => ReduxOp::Xor,
                        _ => return None,
                    })
                })
                .ok_or("redux without an operation")?;
            DInst::Redux {
                op: r,
                signed: t.is_signed(),
                d: ctx.reg(op(0)?)?,
                a: ctx.src(op(1)?, t)?,
                mask: ctx.src(op(2)?, u32t)?,
            }
        }
        Elect => {
            let (d, p) = pair(ctx, op(0)?)?;
            DInst::Elect {
                d,
                p,
                mask: ctx.src(op(1)?, u32t)?,
            }
        }
        Shfl => {
            let mode = if inst.has_word("up") {
                ShflMode::Up
            } else if inst.has_word("down") {
                ShflMode::Down
            } else if inst.has_word("bfly") {
                ShflMode::Bfly
            } else if inst.has_word("idx") {
                ShflMode::Idx
            } else {
                return Err("shfl without a mode".into());
            };
            let (d, p) = pair(ctx, op(0)?)?;
            let sync = inst.has_word("sync");
            DInst::Shfl {
                mode,
                d: d.ok_or("shfl needs a destination")?,
                p,
                a: ctx.src(op(1)?, Type::B32)?,
                b: ctx.src(op(2)?, u32t)?,
                c: ctx.src(op(3)?, u32t)?,
                mask: if sync {
                    Some(ctx.src(op(4)?, u32t)?)
                } else {
                    None
                },
            }
        }
        other => return Err(misrouted(other, "collective")),
    })
}

fn one(ctx: &Ctx, inst: &InstData, op: Op, t: Type) -> DResult<DInst> {
    Ok(DInst::Op1 {
        op,
        d: ctx.reg(operand(inst, 0)?)?,
        a: ctx.src(operand(inst, 1)?, t)?,
    })
}

fn two(ctx: &Ctx, inst: &InstData, op: Op, t: [Type; 2]) -> DResult<DInst> {
    Ok(DInst::Op2 {
        op,
        d: ctx.reg(operand(inst, 0)?)?,
        a: ctx.src(operand(inst, 1)?, t[0])?,
        b: ctx.src(operand(inst, 2)?, t[1])?,
    })
}

fn three(ctx: &Ctx, inst: &InstData, op: Op, t: [Type; 3]) -> DResult<DInst> {
    Ok(DInst::Op3 {
        op,
        d: ctx.reg(operand(inst, 0)?)?,
        a: ctx.src(operand(inst, 1)?, t[0])?,
        b: ctx.src(operand(inst, 2)?, t[1])?,
        c: ctx.src(operand(inst, 3)?, t[2])?,
    })
}

fn decode_cvt(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let tys: Vec<Type> = inst.types().collect();
    if tys.len() != 2 {
        return Err("cvt needs two types".into());
    }
    let (dt, st) = (tys[0], tys[1]);
    let (rnd, int_rnd) = rnd_of(inst);
    if let Some(fp8) = decode_cvt_fp8(ctx, inst, dt, st, rnd)? {
        return Ok(fp8);
    }
    if inst.has_word("satfinite") {
        return Err("cvt .satfinite is not supported here (only to .e4m3x2/.e5m2x2)".into());
    }
    if matches!(dt, Type::F16x2 | Type::Bf16x2) {
        let f = fty(dt).ok_or("bad packed type")?;
        if st != Type::F32 {
            return Err("cvt to packed halves needs .f32 inputs".into());
        }
        return Ok(DInst::Op2 {
            op: Op::CvtPack {
                ty: f,
                rnd: rnd.unwrap_or(Rnd::Rn),
                relu: inst.has_word("relu"),
            },
            d: ctx.reg(operand(inst, 0)?)?,
            a: ctx.src(operand(inst, 1)?, st)?,
            b: ctx.src(operand(inst, 2)?, st)?,
        });
    }
    let d = ctx.reg(operand(inst, 0)?)?;
    let spec = CvtSpec {
        dst: num_ty(dt)?,
        reg_bits: u32::from(ctx.reg_bits.get(d as usize).copied().unwrap_or(64)),
        src: num_ty(st)?,
        rnd,
        int_rnd,
        ftz: inst.has_word("ftz"),
        sat: inst.has_word("sat"),
        relu: inst.has_word("relu"),
    };
    one(ctx, inst, Op::Cvt(spec), st)
}

/// The packed 8-bit float conversions (PTX ISA §9.7.9.21): `cvt.rn.satfinite{.relu}.<f8x2>.f32
/// d, a, b`, `cvt.rn.satfinite{.relu}.<f8x2>.f16x2 d, a` and `cvt.rn{.relu}.f16x2.<f8x2> d, a`
/// with `<f8x2>` `e4m3x2` or `e5m2x2` ([`super::fp8`]). None for any other `cvt`.
fn decode_cvt_fp8(
    ctx: &Ctx,
    inst: &InstData,
    dt: Type,
    st: Type,
    rnd: Option<Rnd>,
) -> DResult<Option<DInst>> {
    use super::fp8::{Fp8, Fp8Cvt};
    let fmt = |t: Type| match t {
        Type::E4m3x2 => Some(Fp8::E4m3),
        Type::E5m2x2 => Some(Fp8::E5m2),
        _ => None,
    };
    let (f, how) = match (fmt(dt), fmt(st), st, dt) {
        (Some(f), None, Type::F32, _) => (f, Fp8Cvt::FromF32Pair),
        (Some(f), None, Type::F16x2, _) => (f, Fp8Cvt::FromF16x2),
        (None, Some(f), _, Type::F16x2) => (f, Fp8Cvt::ToF16x2),
        (None, None, ..) => return Ok(None),
        _ => return Err(format!("cvt.{dt}.{st} is not supported")),
    };
    if rnd != Some(Rnd::Rn) {
        return Err("8-bit float conversions need .rn".into());
    }
    if how != Fp8Cvt::ToF16x2 && !inst.has_word("satfinite") {
        return Err("conversions to 8-bit floats need .satfinite".into());
    }
    let op = Op::CvtFp8 {
        fmt: f,
        how,
        relu: inst.has_word("relu"),
    };
    let d = ctx.reg(operand(inst, 0)?)?;
    Ok(Some(match how {
        Fp8Cvt::FromF32Pair => DInst::Op2 {
            op,
            d,
            a: ctx.src(operand(inst, 1)?, Type::F32)?,
            b: ctx.src(operand(inst, 2)?, Type::F32)?,
        },
        Fp8Cvt::FromF16x2 => DInst::Op1 {
            op,
            d,
            a: ctx.src(operand(inst, 1)?, Type::B32)?,
        },
        Fp8Cvt::ToF16x2 => DInst::Op1 {
            op,
            d,
            a: ctx.src(operand(inst, 1)?, Type::B16)?,
        },
    }))
}

fn decode_atom(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let t = inst.ty().ok_or("missing type")?;
    if inst.has_word("async") {
        return Err(
            "red.async (a reduction that completes on an mbarrier) is not supported".into(),
        );
    }
    if inst.vec_width().is_some() {
        return Err("vector atomics are not supported".into());
    }
    let space = inst_space(inst)?;
    let has_d = inst.opcode == Opcode::Atom;
    let base = usize::from(has_d);
    let (bits, signed) = match fty(t) {
        Some(f) => (f.bits(), false),
        None => int_ty(t)?,
    };
    let float = fty(t);
    let word = words(inst)
        .find(|w| {
            matches!(
                *w,
                "and" | "or" | "xor" | "cas" | "exch" | "add" | "inc" | "dec" | "min" | "max"
            )
        })
        .ok_or("atom without an operation")?;
    let kind = match (word, float) {
        ("cas", _) => AtomKind::Cas,
        ("exch", _) => AtomKind::Exch,
        ("add", Some(f)) => AtomKind::Op(Op::FAdd {
            ty: f,
            m: FMods {
                rnd: Rnd::Rn,
                ftz: f == FTy::F32,
                sat: false,
            },
        }),
        ("min", Some(f)) => AtomKind::Op(Op::FMin {
            ty: f,
            ftz: false,
            nan: false,
        }),
        ("max", Some(f)) => AtomKind::Op(Op::FMax {
            ty: f,
            ftz: false,
            nan: false,
        }),
        ("add", None) => AtomKind::Op(Op::Add { bits, sat: false }),
        ("and", None) => AtomKind::Op(Op::And { bits }),
        ("or", None) => AtomKind::Op(Op::Or { bits }),
        ("xor", None) => AtomKind::Op(Op::Xor { bits }),
        ("min", None) => AtomKind::Op(Op::MinI { bits, signed }),
        ("max", None) => AtomKind::Op(Op::MaxI { bits, signed }),
        ("inc", None) if bits == 32 => AtomKind::Op(Op::AtomInc),
        ("dec", None) if bits == 32 => AtomKind::Op(Op::AtomDec),
        (w, _) => return Err(format!("atom.{w}.{t} is not supported")),
    };
    let d = if has_d {
        ctx.dst(operand(inst, 0)?)?
    } else {
        None
    };
    let c = if kind == AtomKind::Cas {
        Some(ctx.src(operand(inst, base + 2)?, t)?)
    } else {
        None
    };
    Ok(DInst::Atom {
        kind,
        size: bits / 8,
        d,
        addr: ctx.addr(operand(inst, base)?, space)?,
        b: ctx.src(operand(inst, base + 1)?, t)?,
        c,
    })
}

fn decode_bar(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let u32t = Type::U32;
    if inst.has_word("warp") {
        return Ok(DInst::WarpSync {
            mask: ctx.src(operand(inst, 0)?, u32t)?,
        });
    }
    if inst.has_word("cluster") {
        return match (inst.has_word("arrive"), inst.has_word("wait")) {
            (true, false) => Ok(DInst::ClusterBar { wait: false }),
            (false, true) => Ok(DInst::ClusterBar { wait: true }),
            _ => Err("barrier.cluster needs .arrive or .wait".into()),
        };
    }
    if inst.has_word("red") {
        let op = if inst.has_word("popc") {
            BarOp::RedPopc
        } else if inst.has_word("and") {
            BarOp::RedAnd
        } else if inst.has_word("or") {
            BarOp::RedOr
        } else {
            return Err("bar.red without an operation".into());
        };
        let n = inst.operands.len();
        if !(3..=4).contains(&n) {
            return Err("bar.red needs 3 or 4 operands".into());
        }
        return Ok(DInst::Bar {
            op,
            id: ctx.src(operand(inst, 1)?, u32t)?,
            count: if n == 4 {
                Some(ctx.src(operand(inst, 2)?, u32t)?)
            } else {
                None
            },
            d: Some(ctx.reg(operand(inst, 0)?)?),
            pred: Some(ctx.src(operand(inst, n - 1)?, Type::Pred)?),
        });
    }
    let op = if inst.has_word("arrive") {
        BarOp::Arrive
    } else if inst.has_word("sync") || inst.mods.is_empty() {
        BarOp::Sync
    } else {
        return Err("unknown barrier form".into());
    };
    Ok(DInst::Bar {
        op,
        id: ctx.src(operand(inst, 0)?, u32t)?,
        count: match inst.operands.get(1) {
            Some(o) => Some(ctx.src(o, u32t)?),
            None => None,
        },
        d: None,
        pred: None,
    })
}

fn decode_call(ctx: &Ctx, inst: &InstData, funcs: &HashMap<String, u32>) -> DResult<DInst> {
    let ops = &inst.operands;
    let mut i = 0;
    let mut rets = Vec::new();
    if let Some(Operand::List(rl)) = ops.first() {
        for r in rl {
            rets.push(match r {
                Operand::Sym(name) => match ctx.lookup(name) {
                    Some(Sym::FParam(s)) => CallRet::Slot(s.offset, s.size),
                    _ => return Err(format!("call return `{name}` is not a .param variable")),
                },
                Operand::Reg(_) => CallRet::Reg(ctx.reg(r)?),
                other => return Err(format!("unsupported call return {other:?}")),
            });
        }
        i = 1;
    }
    let callee = match ops.get(i) {
        Some(Operand::Sym(name)) => Callee::Direct(
            *funcs
                .get(&**name)
                .ok_or_else(|| format!("call to unknown function `{name}`"))?,
        ),
        Some(r @ Operand::Reg(_)) => Callee::Indirect(ctx.src(r, Type::U64)?),
        other => return Err(format!("unsupported call target {other:?}")),
    };
    let mut args = Vec::new();
    if let Some(Operand::List(al)) = ops.get(i + 1) {
        for a in al {
            args.push(match a {
                Operand::Sym(name) => match ctx.lookup(name) {
                    Some(Sym::FParam(s)) => CallArg::Slot(s.offset, s.size),
                    _ => return Err(format!("call argument `{name}` is not a .param variable")),
                },
                other => CallArg::Value(ctx.src(other, Type::B64)?),
            });
        }
    }
    Ok(DInst::Call { callee, args, rets })
}

/// Bytes per kernel-parameter alignment: the declared alignment, or the element size.
fn param_layout(vars: &[Variable], start: u64) -> (Vec<(u64, u64)>, u64) {
    let mut off = start;
    let mut out = Vec::new();
    for v in vars {
        let a = var_align(v);
        off = align_up(off, a);
        let size = v.size_bytes().max(u64::from(v.ty.bytes()));
        out.push((off, size));
        off += size;
    }
    (out, off)
}

/// Largest module `.global` variable the emulator allocates (bytes).
pub const MAX_VAR_BYTES: u64 = 1 << 30;
/// Largest constant bank (bytes; hardware banks hold 64 KiB).
pub const MAX_CONST_BYTES: u64 = 1 << 20;
/// Largest `.param` area of a function or kernel (bytes; PTX allows 32 KiB of kernel parameters).
pub const MAX_PARAM_BYTES: u64 = 1 << 16;

impl<'m> Program<'m> {
    /// Decodes every function of `module`; `file` names the source in messages.
    pub fn new(module: &'m Module, file: &str) -> Result<Program<'m>, String> {
        let too_big = |v: &Variable, limit: u64| -> Result<(), String> {
            if v.size_bytes() > limit {
                return Err(format!(
                    "{file}:{}: `{}` has {} bytes, more than the emulator's limit of {limit}",
                    v.loc.line,
                    v.name.as_deref().unwrap_or("?"),
                    v.size_bytes()
                ));
            }
            Ok(())
        };
        for it in &module.items {
            match it {
                Item::Var(v) => too_big(
                    v,
                    if v.space == StateSpace::Const {
                        MAX_CONST_BYTES
                    } else {
                        MAX_VAR_BYTES
                    },
                )?,
                Item::Function(f) => {
                    for p in f.param_list().iter().chain(f.returns.iter().flatten()) {
                        too_big(p, MAX_PARAM_BYTES)?;
                    }
                    for v in f.body.iter().flat_map(|b| b.vars()) {
                        let limit = match v.space {
                            StateSpace::Local => 1 << 24,
                            StateSpace::Param => MAX_PARAM_BYTES,
                            StateSpace::Const => MAX_CONST_BYTES,
                            _ => MAX_VAR_BYTES,
                        };
                        too_big(v, limit)?;
                    }
                }
                _ => {}
            }
        }
        let mut globals = GlobalMem::default();
        let mut global_vars = Vec::new();
        let mut const_vars = Vec::new();
        let mut const_bank: Vec<u8> = Vec::new();
        let mut shared_off: u64 = 0;
        let mut dyn_align: u64 = 16;
        let mut syms: HashMap<String, Sym> = HashMap::new();
        let mut by_name = HashMap::new();

        // Functions first: their addresses may appear in initialisers.
        let mut fidx = 0u32;
        for it in &module.items {
            if let Item::Function(f) = it {
                if !by_name.contains_key(&*f.name) || f.body.is_some() {
                    by_name.insert(f.name.to_string(), fidx);
                    syms.insert(f.name.to_string(), Sym::Func(fidx));
                }
                fidx += 1;
            }
        }
        // Shared and const layout, then global allocation (initialisers may name any of them).
        let mut pending_inits: Vec<(&Variable, Space, u64)> = Vec::new();
        // Function-scope `.global`/`.const` variables are static: placed here, in source order
        // with the module's, initialised with them.
        let mut body_statics: HashMap<(usize, usize), Sym> = HashMap::new();
        for (ii, it) in module.items.iter().enumerate() {
            if let Item::Function(f) = it {
                let stmts = f.body.as_ref().map_or(&[][..], |b| &b.stmts[..]);
                for (si, s) in stmts.iter().enumerate() {
                    let Stmt::Var(v) = s else { continue };
                    let Some(name) = &v.name else { continue };
                    let align = var_align(v);
                    let sym = match space_of(v.space) {
                        Some(Space::Const) => {
                            let off = align_up(const_bank.len() as u64, align);
                            const_bank.resize((off + v.size_bytes()) as usize, 0);
                            pending_inits.push((v, Space::Const, off));
                            Sym::Const(off)
                        }
                        Some(Space::Global) => {
                            let (idx, base) =
                                globals.alloc(name, vec![0; v.size_bytes() as usize], align);
                            global_vars.push((name.to_string(), idx));
                            pending_inits.push((v, Space::Global, u64::from(idx)));
                            Sym::Global(base)
                        }
                        _ => continue,
                    };
                    body_statics.insert((ii, si), sym);
                }
                continue;
            }
            let Item::Var(v) = it else { continue };
            let Some(name) = &v.name else { continue };
            let Some(space) = space_of(v.space) else {
                continue;
            };
            let align = var_align(v);
            match space {
                Space::Shared => {
                    if v.dims.iter().any(Option::is_none) {
                        // Dynamic shared memory: placed after all static shared variables.
                        dyn_align = dyn_align.max(align);
                        syms.insert(name.to_string(), Sym::Shared(u64::MAX));
                    } else {
                        shared_off = align_up(shared_off, align);
                        syms.insert(name.to_string(), Sym::Shared(shared_off));
                        shared_off += v.size_bytes();
                    }
                }
                Space::Const => {
                    let off = align_up(const_bank.len() as u64, align);
                    const_bank.resize((off + v.size_bytes()) as usize, 0);
                    syms.insert(name.to_string(), Sym::Const(off));
                    const_vars.push((name.to_string(), off, v.size_bytes()));
                    pending_inits.push((v, Space::Const, off));
                }
                Space::Global => {
                    let (idx, base) = globals.alloc(name, vec![0; v.size_bytes() as usize], align);
                    global_vars.push((name.to_string(), idx));
                    syms.insert(name.to_string(), Sym::Global(base));
                    pending_inits.push((v, Space::Global, u64::from(idx)));
                }
                _ => {}
            }
        }
        // Body-level .shared variables of every function are static per CTA as well.
        let mut body_shared: HashMap<(usize, usize), u64> = HashMap::new();
        for (ii, it) in module.items.iter().enumerate() {
            let Item::Function(f) = it else { continue };
            let Some(body) = &f.body else { continue };
            for (si, s) in body.stmts.iter().enumerate() {
                if let Stmt::Var(v) = s {
                    if space_of(v.space) == Some(Space::Shared) {
                        let align = var_align(v);
                        shared_off = align_up(shared_off, align);
                        body_shared.insert((ii, si), shared_off);
                        shared_off += v.size_bytes();
                    }
                }
            }
        }
        let dyn_smem_offset = align_up(shared_off, dyn_align);
        for s in syms.values_mut() {
            if let Sym::Shared(off) = s {
                if *off == u64::MAX {
                    *off = dyn_smem_offset;
                }
            }
        }
        // Initialisers.
        let addr_of = |name: &str, generic: bool| -> Option<u64> {
            Some(match syms.get(name)? {
                Sym::Global(a) => *a,
                Sym::Shared(a) => a + if generic { SHARED_BASE } else { 0 },
                Sym::Const(a) => a + if generic { CONST_BASE } else { 0 },
                Sym::Func(i) => CODE_BASE + 16 * u64::from(*i),
                _ => return None,
            })
        };
        for (v, space, at) in pending_inits {
            let Some(init) = &v.init else { continue };
            let mut bytes = Vec::new();
            encode_init(init, v.ty, &mut bytes, &addr_of).map_err(|e| {
                format!(
                    "{file}:{}: initialiser of `{}`: {e}",
                    v.loc.line,
                    v.name.as_deref().unwrap_or("?")
                )
            })?;
            match space {
                Space::Const => {
                    let end = (at as usize + bytes.len()).min(const_bank.len());
                    let n = end - at as usize;
                    const_bank[at as usize..end].copy_from_slice(&bytes[..n]);
                }
                _ => {
                    let a = &mut globals.allocs[at as usize];
                    let n = bytes.len().min(a.data.len());
                    a.data[..n].copy_from_slice(&bytes[..n]);
                }
            }
        }

        let mut funcs = Vec::new();
        for (ii, it) in module.items.iter().enumerate() {
            let Item::Function(f) = it else { continue };
            funcs.push(decode_function(
                f,
                ii,
                &syms,
                &by_name,
                &body_shared,
                &body_statics,
            ));
        }
        Ok(Program {
            module,
            file: file.to_string(),
            funcs,
            by_name,
            globals,
            global_vars,
            const_bank,
            const_vars,
            shared_static: shared_off,
            dyn_smem_offset,
        })
    }

    /// The function of `module` a decoded function came from.
    pub fn function(&self, f: u32) -> Option<&'m Function> {
        match self.module.items.get(self.funcs.get(f as usize)?.item)? {
            Item::Function(func) => Some(func),
            _ => None,
        }
    }

    /// `file:line: text` of instruction `pc` of function `f`, for messages.
    pub fn describe(&self, f: u32, pc: u32) -> (String, String) {
        let Some(df) = self.funcs.get(f as usize) else {
            return (self.file.clone(), String::new());
        };
        let Some(di) = df.code.get(pc as usize) else {
            return (format!("{}: end of {}", self.file, df.name), String::new());
        };
        let text = self
            .function(f)
            .and_then(|func| func.body.as_ref())
            .map(|b| crate::ptx::printer::print_inst(b, di.inst))
            .unwrap_or_default();
        (format!("{}:{}", self.file, di.line), text)
    }
}

fn decode_function(
    f: &Function,
    item: usize,
    module_syms: &HashMap<String, Sym>,
    funcs: &HashMap<String, u32>,
    body_shared: &HashMap<(usize, usize), u64>,
    body_statics: &HashMap<(usize, usize), Sym>,
) -> DFunc {
    let is_kernel = f.kind == FuncKind::Entry;
    let mut df = DFunc {
        name: f.name.to_string(),
        item,
        is_kernel,
        has_body: f.body.is_some(),
        code: Vec::new(),
        nregs: 1,
        cc_reg: 0,
        reg_bits: vec![1],
        local_size: 0,
        param_size: 0,
        params: Vec::new(),
        rets: Vec::new(),
        kparams: Vec::new(),
        kparam_size: 0,
    };
    let mut top: HashMap<String, Sym> = HashMap::new();
    let mut param_off: u64 = 0;
    if is_kernel {
        let (lay, size) = param_layout(f.param_list(), 0);
        for (v, (off, sz)) in f.param_list().iter().zip(lay) {
            let name = v.name.as_deref().unwrap_or("_").to_string();
            top.insert(name.clone(), Sym::KParam(off));
            df.kparams.push(KParam {
                name,
                offset: off,
                size: sz,
                ty: v.ty,
                is_ptr: v.ptr.is_some(),
            });
        }
        df.kparam_size = size;
    } else {
        let rets = f.returns.as_deref().unwrap_or(&[]);
        let (lay, end) = param_layout(rets, 0);
        let reg_of = |v: &Variable| -> Option<u32> {
            if v.space != StateSpace::Reg {
                return None;
            }
            let b = f.body.as_ref()?;
            b.reg_by_name(v.name.as_deref()?).map(|r| r.0)
        };
        for (v, (off, sz)) in rets.iter().zip(lay) {
            let s = Slot {
                offset: off as u32,
                size: sz as u32,
                reg: reg_of(v),
            };
            if let Some(n) = &v.name {
                top.insert(n.to_string(), Sym::FParam(s));
            }
            df.rets.push(s);
        }
        let (lay, end) = param_layout(f.param_list(), end);
        for (v, (off, sz)) in f.param_list().iter().zip(lay) {
            let s = Slot {
                offset: off as u32,
                size: sz as u32,
                reg: reg_of(v),
            };
            if let Some(n) = &v.name {
                top.insert(n.to_string(), Sym::FParam(s));
            }
            df.params.push(s);
        }
        param_off = end;
    }
    let Some(body) = &f.body else {
        df.param_size = param_off as u32;
        return df;
    };
    // Registers: widths, plus the carry flag.
    let nregs = body.regs.len() as u32;
    let mut reg_bits: Vec<u8> = Vec::with_capacity(nregs as usize + 1);
    let mut bad_regs = Vec::with_capacity(nregs as usize);
    for r in &body.regs {
        let bits = r.ty.bits();
        bad_regs.push(r.ty.vec.is_some() || bits > 64);
        reg_bits.push(bits.min(64) as u8);
    }
    reg_bits.push(1);
    df.cc_reg = nregs;
    df.nregs = nregs + 1;
    // Labels and tables.
    let mut label_pc = vec![u32::MAX; body.labels.len()];
    let mut tables: HashMap<Label, Vec<Label>> = HashMap::new();
    let mut order: Vec<Inst> = Vec::new();
    for s in &body.stmts {
        match s {
            Stmt::Label(l) => {
                if let Some(slot) = label_pc.get_mut(l.index()) {
                    *slot = order.len() as u32;
                }
            }
            Stmt::Inst(i) => order.push(*i),
            Stmt::BranchTargets { label, targets } => {
                tables.insert(*label, targets.clone());
            }
            _ => {}
        }
    }
    let mut pc_of = vec![u32::MAX; body.insts.len()];
    for (pc, i) in order.iter().enumerate() {
        if let Some(p) = pc_of.get_mut(i.index()) {
            *p = pc as u32;
        }
    }
    // Reconvergence points: the first instruction of each block's immediate post-dominator.
    let cfg = Cfg::compute(body);
    let pdt = PostDomTree::compute(&cfg);
    let rpc_of = |inst: Inst| -> u32 {
        let Some(b) = cfg.block_of(inst) else {
            return NO_RPC;
        };
        match pdt.ipdom(b) {
            None => NO_RPC,
            Some(r) => match cfg.insts(r).first() {
                Some(i) => pc_of[i.index()],
                // An empty block can only be the fall-off end of the body.
                None => order.len() as u32,
            },
        }
    };
    // Walk statements with scopes: variables get their storage, instructions are decoded.
    let mut ctx = Ctx {
        body,
        scopes: vec![top],
        module_syms,
        label_pc: &label_pc,
        tables: &tables,
        reg_bits: &reg_bits,
        bad_regs: &bad_regs,
    };
    let mut local_off: u64 = 0;
    for (si, s) in body.stmts.iter().enumerate() {
        match s {
            Stmt::ScopeOpen => ctx.scopes.push(HashMap::new()),
            Stmt::ScopeClose if ctx.scopes.len() > 1 => {
                ctx.scopes.pop();
            }
            Stmt::Var(v) => {
                let Some(name) = &v.name else { continue };
                let align = var_align(v);
                let sym = match space_of(v.space) {
                    Some(Space::Local) => {
                        local_off = align_up(local_off, align);
                        let s = Sym::Local(local_off);
                        local_off += v.size_bytes();
                        s
                    }
                    Some(Space::Param) => {
                        param_off = align_up(param_off, align);
                        let size = v.size_bytes().max(u64::from(v.ty.bytes()));
                        let s = Sym::FParam(Slot {
                            offset: param_off as u32,
                            size: size as u32,
                            reg: None,
                        });
                        param_off += size;
                        s
                    }
                    Some(Space::Shared) => {
                        Sym::Shared(body_shared.get(&(item, si)).copied().unwrap_or(0))
                    }
                    Some(Space::Const | Space::Global) => match body_statics.get(&(item, si)) {
                        Some(sym) => *sym,
                        None => continue,
                    },
                    _ => continue,
                };
                if let Some(scope) = ctx.scopes.last_mut() {
                    scope.insert(name.to_string(), sym);
                }
            }
            Stmt::Inst(i) => {
                let Some(data) = body.insts.get(i.index()) else {
                    continue;
                };
                let rpc = if matches!(data.opcode, Opcode::Bra | Opcode::Brx) {
                    rpc_of(*i)
                } else {
                    NO_RPC
                };
                let mut bad_guard = false;
                let guard = match data.guard {
                    Some(g) => {
                        bad_guard = ctx.bad_regs.get(g.reg.index()).copied().unwrap_or(true);
                        Some((g.reg.0, g.negated))
                    }
                    None => None,
                };
                let decoded = if bad_guard {
                    Err("the guard is not a predicate register".to_string())
                } else {
                    decode_inst(&ctx, data, rpc, funcs)
                };
                let (kind, guard) = match decoded {
                    Ok(k) => (k, guard),
                    Err(why) => {
                        log::debug!("{}: line {}: unsupported: {why}", f.name, data.loc.line);
                        (DInst::Unsupported { why }, None)
                    }
                };
                df.code.push(DecodedInst {
                    kind,
                    guard,
                    inst: *i,
                    line: data.loc.line,
                });
            }
            _ => {}
        }
    }
    df.reg_bits = reg_bits;
    df.local_size = align_up(local_off, 16);
    df.param_size = align_up(param_off, 8) as u32;
    df
}

//! Post-spill clean-up inside each basic block (RegDem §3.3, "post-spill optimisations"):
//!
//! - a reload of a spill word whose value is still in a register (the one last stored to it or
//!   loaded from it, not redefined since, and referenced at most [`WINDOW`] statements before)
//!   becomes a `mov` from that register, which ptxas folds away;
//! - a store to a per-thread spill word that is overwritten later in the same block before any
//!   reload of it is dropped.
//!
//! Only accesses to the pass's own spill array (`[array+k]`, `[thread_base+k]`,
//! `[warp_base+k]`) are touched. The knowledge is reset at every label a branch can name (not at
//! debug anchors nothing names), branch, call, return, barrier and fence, and guarded accesses
//! are never rewritten. Reloads are already placed
//! immediately before their use and stores immediately after their definition by [`super::rewrite`],
//! which is as late and as early as the dependences allow.

use std::collections::HashMap;

use crate::ptx::roles::{defs, for_each_reg_role};
use crate::ptx::{smallvec, AddrBase, Body, Modifier, Opcode, Operand, Reg, StateSpace, Stmt};

use super::rewrite::Bases;

/// A reload is turned into a move only when the register holding the word was referenced at
/// most this many statements before: keeping it alive longer would raise the register pressure
/// the demotion was meant to lower.
const WINDOW: usize = 4;

/// Which spill word an address names: (base kind, base register index or 0, byte offset).
type Key = (u8, usize, i64);

fn spill_key(op: &Operand, bases: &Bases) -> Option<Key> {
    let Operand::Addr(a) = op else { return None };
    match &a.base {
        AddrBase::Reg(r) if Some(*r) == bases.thread => Some((0, r.index(), a.offset)),
        AddrBase::Reg(r) if Some(*r) == bases.warp => Some((1, r.index(), a.offset)),
        AddrBase::Sym(s) if **s == *bases.array => Some((2, 0, a.offset)),
        _ => None,
    }
}

fn is_shared(mods: &[Modifier]) -> bool {
    mods.iter().any(|m| {
        matches!(
            m,
            Modifier::Space(StateSpace::Shared | StateSpace::SharedCta)
        )
    })
}

/// Counts of what [`optimise`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Reloads turned into register moves.
    pub reloads: usize,
    /// Stores dropped.
    pub stores: usize,
}

/// Runs both clean-ups over `body`.
pub fn optimise(body: &mut Body, bases: &Bases) -> Cleaned {
    let mut done = Cleaned::default();
    // Word -> register holding its current value.
    let mut holds: HashMap<Key, Reg> = HashMap::new();
    // Per-thread word -> statement index of a store not yet read.
    let mut unread: HashMap<Key, usize> = HashMap::new();
    let mut dead: Vec<usize> = Vec::new();
    // Statement index of each register's latest read or write.
    let mut last_ref: HashMap<Reg, usize> = HashMap::new();
    let mut pending: (Vec<Reg>, usize) = (Vec::new(), 0);
    // Labels no branch names (Triton's and clang's debug anchors) are entered only by falling
    // through: what is known survives them.
    let named = crate::analysis::unnamed_labels::named(body);
    for si in 0..body.stmts.len() {
        let id = match &body.stmts[si] {
            Stmt::Inst(i) => *i,
            Stmt::Label(l) if named[l.index()] => {
                holds.clear();
                unread.clear();
                continue;
            }
            _ => continue,
        };
        let inst = body.inst(id).clone();
        let guarded = inst.guard.is_some();
        // The previous instruction's registers were referenced at its statement.
        for r in pending.0.drain(..) {
            last_ref.insert(r, pending.1);
        }
        for_each_reg_role(&inst, |r, _| pending.0.push(r));
        pending.1 = si;
        let ends = matches!(
            inst.opcode,
            Opcode::Bra
                | Opcode::Brx
                | Opcode::Call
                | Opcode::Ret
                | Opcode::Exit
                | Opcode::Bar
                | Opcode::Barrier
                | Opcode::Membar
                | Opcode::Fence
        );
        let spill_access = matches!(inst.opcode, Opcode::Ld | Opcode::St)
            && is_shared(&inst.mods)
            && inst.mods.iter().all(|m| !matches!(m, Modifier::Vec(_)));
        match (&inst.opcode, spill_access) {
            (&Opcode::Ld, true) => {
                if let (Some(key), Some(Operand::Reg(t))) = (
                    inst.operands.get(1).and_then(|o| spill_key(o, bases)),
                    inst.operands.first(),
                ) {
                    let t = *t;
                    unread.remove(&key);
                    if !guarded {
                        if let Some(&h) = holds
                            .get(&key)
                            .filter(|h| last_ref.get(h).is_some_and(|&at| si - at <= WINDOW))
                        {
                            let ty = inst.mods.iter().find_map(|m| match m {
                                Modifier::Type(ty) => Some(*ty),
                                _ => None,
                            });
                            if h == t {
                                dead.push(si);
                            } else if let Some(ty) = ty {
                                let d = body.inst_mut(id);
                                d.opcode = Opcode::Mov;
                                d.mods = smallvec![Modifier::Type(ty)];
                                d.operands = smallvec![Operand::Reg(t), Operand::Reg(h)];
                                pending.0.push(h);
                            }
                            done.reloads += 1;
                        }
                    }
                    holds.retain(|_, r| *r != t);
                    if guarded {
                        holds.remove(&key);
                    } else {
                        holds.insert(key, t);
                    }
                    continue;
                }
            }
            (&Opcode::St, true) => {
                if let (Some(key), Some(Operand::Reg(h))) = (
                    inst.operands.first().and_then(|o| spill_key(o, bases)),
                    inst.operands.get(1),
                ) {
                    if guarded {
                        holds.remove(&key);
                        unread.remove(&key);
                    } else {
                        if key.0 == 0 {
                            if let Some(prev) = unread.insert(key, si) {
                                dead.push(prev);
                                done.stores += 1;
                            }
                        }
                        holds.insert(key, *h);
                    }
                    continue;
                }
            }
            _ => {}
        }
        // Any other instruction: forget the words whose register it redefines.
        let written = defs(&inst);
        holds.retain(|_, r| !written.contains(r));
        if ends {
            holds.clear();
            unread.clear();
        }
    }
    dead.sort_unstable();
    dead.dedup();
    for si in dead.into_iter().rev() {
        body.stmts.remove(si);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::{parse_module, print_module};

    const SPILLED: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<3>;
	.shared .align 4 .b8 __ws_spill[1024];
	mov.u32 %r9, %tid.x;
	mov.u32 %r10, __ws_spill;
	mad.lo.u32 %r8, %r9, 4, %r10;
	mov.u32 %r1, 1;
	st.shared.b32 [%r8], %r1;
	ld.shared.b32 %r2, [%r8];
	add.s32 %r2, %r2, 5;
	st.shared.b32 [%r8], %r2;
	ld.shared.b32 %r3, [%r8];
	ld.shared.b32 %r3, [%r8];
	setp.eq.s32 %p1, %r3, 6;
	@%p1 bra $L_done;
	ld.shared.b32 %r4, [%r8];
	add.s32 %r4, %r4, 1;
	st.shared.b32 [%r8], %r4;
$L_done:
	ld.shared.b32 %r5, [%r8];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], %r5;
	ret;
}
"#;

    /// Both clean-ups on `src` (spill words addressed through `%r8`), and the module printed.
    fn cleaned(src: &str) -> (Cleaned, String) {
        let mut m = parse_module(src, "k.ptx").unwrap();
        let body = m.functions_mut().next().unwrap().body.as_mut().unwrap();
        let bases = Bases {
            array: "__ws_spill".into(),
            thread: body.reg_by_name("%r8"),
            warp: None,
            granule: 1,
            in_loop: crate::machine::bitset::BitSet::new(0),
        };
        let done = optimise(body, &bases);
        (done, print_module(&m))
    }

    #[test]
    fn reuses_registers_and_drops_overwritten_stores_within_a_block() {
        let (done, text) = cleaned(SPILLED);
        // First block: the reload after each store becomes a move from the stored register, and
        // the second reload of %r3 (already holding the word) is deleted.
        assert_eq!(done.reloads, 3, "{text}");
        assert!(
            text.contains("mov.b32 \t%r2, %r1;") || text.contains("mov.b32 %r2, %r1;"),
            "{text}"
        );
        // The reload after the branch stays a load (a new block), and so does the one after the
        // label.
        assert_eq!(text.matches("ld.shared.b32").count(), 2, "{text}");
        // Stores: none is overwritten within its block without a reload in between.
        assert_eq!(done.stores, 0, "{text}");
    }

    #[test]
    fn drops_a_per_thread_store_overwritten_before_any_reload() {
        let src = SPILLED.replace(
            "\tst.shared.b32 [%r8], %r1;\n\tld.shared.b32 %r2, [%r8];\n",
            "\tst.shared.b32 [%r8], %r1;\n\tmov.u32 %r2, 7;\n",
        );
        let (done, text) = cleaned(&src);
        assert_eq!(done.stores, 1, "{text}");
        assert!(!text.contains("[%r8], %r1;"), "{text}");
        assert!(text.contains("[%r8], %r2;"), "{text}");
    }

    /// A label no branch names (a debug anchor, `$L__tmp0:`) is entered only by falling through:
    /// the register holding a word is still reused after it. A named label still resets.
    #[test]
    fn a_debug_label_does_not_end_what_is_known() {
        let reloads = |src: &str| cleaned(src).0.reloads;
        let anchored = SPILLED.replace(
            "\tst.shared.b32 [%r8], %r1;\n\tld.shared.b32 %r2, [%r8];\n",
            "\tst.shared.b32 [%r8], %r1;\n$L__tmp0:\n\tld.shared.b32 %r2, [%r8];\n",
        );
        assert_ne!(anchored, SPILLED);
        assert_eq!(reloads(&anchored), reloads(SPILLED));
        // The clean-up across the anchor computes what the code before it did, and ptxas takes it.
        let (_, text) = cleaned(&anchored);
        let before = parse_module(&anchored, "k.ptx").unwrap();
        let after = parse_module(&text, "k.ptx").unwrap();
        let spec = crate::emu::launch::spec_for(
            before.function("k").unwrap(),
            &crate::emu::launch::Hints::new().block(&[64, 1, 1]).len(1),
        )
        .unwrap();
        let r = crate::emu::equiv::check(&before, &after, &spec, 2).unwrap();
        assert!(r.is_equal(), "{:?}\n{text}", r.verdict);
        if crate::tools::find(crate::tools::Tool::Ptxas).is_ok() {
            crate::tools::ptxas_accepts_source(&text, "sm_80").unwrap_or_else(|e| panic!("{e}"));
        } else {
            eprintln!("SKIPPED (ptxas check): ptxas not found");
        }
        let target = anchored.replace("$L_done:", "\t@%p1 bra $L__tmp0;\n$L_done:");
        assert_eq!(reloads(&target), reloads(SPILLED) - 1);
    }
}

//! The control-flow graph of a PTX function body (the analogue of Cranelift's `flowgraph.rs`):
//! basic blocks over [`Body::stmts`], successors and predecessors, exit blocks, reachability and
//! reverse post-order.
//!
//! Blocks are formed in layout order:
//! - a label definition starts a new block (consecutive labels share one block);
//! - a control transfer ends its block: `bra`, `brx.idx`, `ret`, `exit`, `trap`, guarded or not;
//!   `call` does not end a block;
//! - the first block is the entry block. It always exists, even for an empty body.
//!
//! Successors: `bra L` goes to the block of `L`; `brx.idx %r, $tbl` goes to every label of the
//! `.branchtargets` table `$tbl`; a guarded transfer (`@%p bra L`, `@%p ret`) also falls through to
//! the next block. `ret`, `exit` and `trap` leave the function: their block is an *exit* block, as is a
//! block whose last instruction falls off the end of the body. A branch whose target cannot be
//! resolved (a label that is never defined, a missing table) is treated conservatively: it may go to
//! every labelled block, and it is listed in [`Cfg::unresolved`].
//!
//! Blocks that the entry cannot reach are kept (their instructions still have a block) and are
//! marked: [`Cfg::is_reachable`] is false and they are absent from [`Cfg::rpo`].
//! Statements that are not instructions or labels (declarations, scopes, debug directives,
//! `.branchtargets` tables) belong to no block.

use std::collections::HashMap;

use crate::ptx::ir::{Body, Inst, InstData, Label, Opcode, Operand, Stmt};

crate::ptx::ir::entity!(
    /// A basic block of a [`Cfg`]; prints as `bb3`.
    Block,
    "bb"
);

/// What [`Cfg`] knows about one block.
#[derive(Clone, Debug, Default)]
struct BlockData {
    insts: Vec<Inst>,
    labels: Vec<Label>,
    succs: Vec<Block>,
    preds: Vec<Block>,
    exit: bool,
    /// Position in reverse post-order, `u32::MAX` when unreachable.
    rpo: u32,
}

/// The control-flow graph of one function body.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    blocks: Vec<BlockData>,
    /// Block of each instruction, indexed by [`Inst`]; `None` for instructions not in the layout.
    inst_block: Vec<Option<Block>>,
    /// Block of each label definition, indexed by [`Label`].
    label_block: Vec<Option<Block>>,
    rpo: Vec<Block>,
    exits: Vec<Block>,
    unresolved: Vec<Inst>,
}

/// How one instruction transfers control.
enum Transfer {
    /// Execution continues with the next instruction.
    None,
    /// A branch to the given blocks (and to the next block when `falls` is true).
    Branch { targets: Vec<Block>, falls: bool },
    /// `ret`, `exit` or `trap`: leaves the function (and falls through when guarded).
    Leave { falls: bool },
}

/// True when `inst` ends its basic block: exactly the instructions whose
/// [`effects`](crate::ptx::roles::effects) control is a branch, return, exit or trap (guarded or
/// not; a test checks the two agree).
fn ends_block(inst: &InstData) -> bool {
    matches!(
        inst.opcode,
        Opcode::Bra | Opcode::Brx | Opcode::Ret | Opcode::Exit | Opcode::Trap
    )
}

impl Cfg {
    /// Builds the CFG of `body`.
    pub fn compute(body: &Body) -> Cfg {
        let mut cfg = Cfg {
            blocks: vec![BlockData::default()],
            inst_block: vec![None; body.insts.len()],
            label_block: vec![None; body.labels.len()],
            ..Cfg::default()
        };
        cfg.form_blocks(body);
        cfg.connect(body);
        cfg.order();
        cfg
    }

    fn form_blocks(&mut self, body: &Body) {
        let mut closed = false;
        for stmt in &body.stmts {
            match stmt {
                Stmt::Label(l) => {
                    let cur = self.blocks.len() - 1;
                    if closed || !self.blocks[cur].insts.is_empty() {
                        self.blocks.push(BlockData::default());
                        closed = false;
                    }
                    let b = Block::new(self.blocks.len() - 1);
                    self.blocks[b.index()].labels.push(*l);
                    if let Some(slot) = self.label_block.get_mut(l.index()) {
                        slot.get_or_insert(b);
                    }
                }
                Stmt::Inst(i) => {
                    let Some(data) = body.insts.get(i.index()) else {
                        continue;
                    };
                    if closed {
                        self.blocks.push(BlockData::default());
                    }
                    let b = Block::new(self.blocks.len() - 1);
                    self.blocks[b.index()].insts.push(*i);
                    self.inst_block[i.index()] = Some(b);
                    closed = ends_block(data);
                }
                _ => {}
            }
        }
    }

    /// The successors a transfer names, resolving labels and `.branchtargets` tables.
    fn transfer(
        &self,
        body: &Body,
        tables: &HashMap<Label, &[Label]>,
        inst: &InstData,
    ) -> Option<Transfer> {
        let falls = inst.guard.is_some();
        Some(match inst.opcode {
            Opcode::Ret | Opcode::Exit | Opcode::Trap => Transfer::Leave { falls },
            Opcode::Bra => {
                let target = inst
                    .operands
                    .iter()
                    .find_map(|op| self.label_operand(body, op))?;
                Transfer::Branch {
                    targets: vec![self.label_block.get(target.index()).copied().flatten()?],
                    falls,
                }
            }
            Opcode::Brx => {
                let table = inst
                    .operands
                    .iter()
                    .filter_map(|op| self.label_operand(body, op))
                    .find_map(|l| tables.get(&l))?;
                let targets = table
                    .iter()
                    .map(|l| self.label_block.get(l.index()).copied().flatten())
                    .collect::<Option<Vec<_>>>()?;
                Transfer::Branch { targets, falls }
            }
            _ => Transfer::None,
        })
    }

    /// The label an operand names: `Operand::Label`, or a symbol spelled like a label of the body.
    fn label_operand(&self, body: &Body, op: &Operand) -> Option<Label> {
        match op {
            Operand::Label(l) => Some(*l),
            Operand::Sym(name) => body.labels.iter().position(|n| n == name).map(Label::new),
            _ => None,
        }
    }

    fn connect(&mut self, body: &Body) {
        let tables: HashMap<Label, &[Label]> = body
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::BranchTargets { label, targets } => Some((*label, targets.as_slice())),
                _ => None,
            })
            .collect();
        let labelled: Vec<Block> = (0..self.blocks.len())
            .map(Block::new)
            .filter(|b| !self.blocks[b.index()].labels.is_empty())
            .collect();
        let n = self.blocks.len();
        for b in 0..n {
            let next = (b + 1 < n).then(|| Block::new(b + 1));
            let last = self.blocks[b]
                .insts
                .last()
                .map(|&i| (i, &body.insts[i.index()]));
            let (mut succs, falls, leaves) = match last {
                None => (vec![], true, false),
                Some((i, data)) => match self.transfer(body, &tables, data) {
                    Some(Transfer::None) => (vec![], true, false),
                    Some(Transfer::Leave { falls }) => (vec![], falls, true),
                    Some(Transfer::Branch { targets, falls }) => (targets, falls, false),
                    None => {
                        self.unresolved.push(i);
                        (labelled.clone(), data.guard.is_some(), false)
                    }
                },
            };
            let mut exit = leaves;
            if falls {
                match next {
                    Some(nb) => succs.push(nb),
                    None => exit = true,
                }
            }
            let mut seen = Vec::with_capacity(succs.len());
            for s in succs {
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            for &s in &seen {
                self.blocks[s.index()].preds.push(Block::new(b));
            }
            self.blocks[b].succs = seen;
            self.blocks[b].exit = exit;
            if exit {
                self.exits.push(Block::new(b));
            }
        }
    }

    /// Reverse post-order of the blocks reachable from the entry (iterative DFS).
    fn order(&mut self) {
        let n = self.blocks.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.blocks[b].succs.get(*next) {
                *next += 1;
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s.index(), 0));
                }
            } else {
                post.push(Block::new(b));
                stack.pop();
            }
        }
        post.reverse();
        for bd in &mut self.blocks {
            bd.rpo = u32::MAX;
        }
        for (k, b) in post.iter().enumerate() {
            self.blocks[b.index()].rpo = k as u32;
        }
        self.rpo = post;
    }

    /// The entry block (always `bb0`).
    pub fn entry(&self) -> Block {
        Block(0)
    }

    /// The number of blocks (reachable or not).
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// All blocks in layout order.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator {
        (0..self.blocks.len()).map(Block::new)
    }

    /// The instructions of `b` in layout order.
    pub fn insts(&self, b: Block) -> &[Inst] {
        &self.blocks[b.index()].insts
    }

    /// The labels defined at the start of `b`.
    pub fn labels(&self, b: Block) -> &[Label] {
        &self.blocks[b.index()].labels
    }

    /// The successors of `b`, without duplicates (branch targets first, then the fall-through).
    pub fn succs(&self, b: Block) -> &[Block] {
        &self.blocks[b.index()].succs
    }

    /// The predecessors of `b`, without duplicates, in increasing block order.
    pub fn preds(&self, b: Block) -> &[Block] {
        &self.blocks[b.index()].preds
    }

    /// True when `b` may leave the function: it ends in `ret`/`exit`/`trap` (guarded or not), or
    /// falls off the end of the body.
    pub fn is_exit(&self, b: Block) -> bool {
        self.blocks[b.index()].exit
    }

    /// The exit blocks, in layout order.
    pub fn exits(&self) -> &[Block] {
        &self.exits
    }

    /// True when the entry block reaches `b`.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.blocks[b.index()].rpo != u32::MAX
    }

    /// The reachable blocks in reverse post-order (the entry first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The position of `b` in [`Cfg::rpo`], `None` when unreachable.
    pub fn rpo_index(&self, b: Block) -> Option<usize> {
        let k = self.blocks[b.index()].rpo;
        (k != u32::MAX).then_some(k as usize)
    }

    /// The block holding `inst`; `None` when the instruction is not in the layout.
    pub fn block_of(&self, inst: Inst) -> Option<Block> {
        self.inst_block.get(inst.index()).copied().flatten()
    }

    /// The block that label `l` starts; `None` when `l` is not defined in the body (a
    /// `.branchtargets` table name, say).
    pub fn block_of_label(&self, l: Label) -> Option<Block> {
        self.label_block.get(l.index()).copied().flatten()
    }

    /// The last instruction of `b` when it is a control transfer.
    pub fn terminator(&self, body: &Body, b: Block) -> Option<Inst> {
        self.insts(b)
            .last()
            .copied()
            .filter(|i| ends_block(body.inst(*i)))
    }

    /// Branches whose targets could not be resolved (treated as going to every labelled block).
    pub fn unresolved(&self) -> &[Inst] {
        &self.unresolved
    }

    /// The number of edges (reachable or not).
    pub fn num_edges(&self) -> usize {
        self.blocks.iter().map(|b| b.succs.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;

    fn b(i: u32) -> Block {
        Block(i)
    }

    #[test]
    fn block_ends_agree_with_roles() {
        use crate::ptx::roles::{effects, Control};
        for op in Opcode::KNOWN {
            let inst = InstData {
                guard: None,
                opcode: op.clone(),
                mods: Default::default(),
                operands: Default::default(),
                loc: Default::default(),
            };
            let control = effects(&inst).control;
            let transfers = matches!(
                control,
                Control::Branch
                    | Control::IndirectBranch
                    | Control::Return
                    | Control::Exit
                    | Control::Trap
            );
            assert_eq!(ends_block(&inst), transfers, "{}", op.as_str());
        }
    }

    #[test]
    fn empty_body_has_entry() {
        let cfg = Cfg::compute(&Body::default());
        assert_eq!(cfg.num_blocks(), 1);
        assert_eq!(cfg.rpo(), &[b(0)]);
        assert!(cfg.is_exit(b(0)));
        assert_eq!(b(3).to_string(), "bb3");
    }

    #[test]
    fn diamond() {
        let body = ptx("
            .reg .b32 %r<3>;
            .reg .pred %p1;
            setp.lt.s32 %p1, %r1, 0;
            @%p1 bra ELSE;
            add.s32 %r2, %r1, 1;
            bra JOIN;
        ELSE:
            sub.s32 %r2, %r1, 1;
        JOIN:
            mov.b32 %r0, %r2;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 4);
        assert_eq!(
            cfg.succs(b(0)),
            &[b(2), b(1)],
            "taken branch first, then fall-through"
        );
        assert_eq!(cfg.succs(b(1)), &[b(3)]);
        assert_eq!(cfg.succs(b(2)), &[b(3)]);
        assert_eq!(cfg.preds(b(3)), &[b(1), b(2)]);
        assert_eq!(cfg.exits(), &[b(3)]);
        assert_eq!(cfg.rpo().first(), Some(&b(0)));
        assert_eq!(cfg.rpo().last(), Some(&b(3)));
        assert_eq!(cfg.insts(b(3)).len(), 2);
        assert_eq!(cfg.block_of(Inst(4)), Some(b(2)));
        assert_eq!(cfg.terminator(&body, b(0)), Some(Inst(1)));
        assert_eq!(cfg.terminator(&body, b(2)), None, "bb2 falls through");
        assert_eq!(body.label_name(cfg.labels(b(2))[0]), "ELSE");
        assert_eq!(cfg.block_of_label(cfg.labels(b(3))[0]), Some(b(3)));
    }

    #[test]
    fn unreachable_block_is_kept() {
        let body = ptx("
            .reg .b32 %r1;
            bra END;
            add.s32 %r1, %r1, 1;
        END:
            ret;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 3);
        assert!(!cfg.is_reachable(b(1)));
        assert_eq!(cfg.rpo_index(b(1)), None);
        assert_eq!(cfg.block_of(Inst(1)), Some(b(1)));
        assert_eq!(cfg.rpo(), &[b(0), b(2)]);
        assert_eq!(cfg.preds(b(2)), &[b(0), b(1)]);
    }

    #[test]
    fn guarded_ret_falls_through() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .pred %p1;
            @%p1 ret;
            add.s32 %r1, %r1, 1;
            exit;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 2);
        assert_eq!(cfg.succs(b(0)), &[b(1)]);
        assert_eq!(cfg.exits(), &[b(0), b(1)]);
    }

    #[test]
    fn call_does_not_end_a_block_but_trap_does() {
        let body = ptx("
            .reg .b32 %r1;
            call f;
            add.s32 %r1, %r1, 1;
            trap;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 2);
        assert_eq!(cfg.insts(b(0)).len(), 3);
        assert!(cfg.is_exit(b(0)));
        assert!(!cfg.is_reachable(b(1)));
    }

    #[test]
    fn predicated_branch() {
        let body = ptx("
            .reg .pred %p1;
        LOOP:
            @!%p1 bra LOOP;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.succs(b(0)), &[b(0), b(1)]);
        assert_eq!(cfg.preds(b(0)), &[b(0)]);
    }

    #[test]
    fn brx_idx_table() {
        let body = ptx("
            .reg .b32 %r1;
            ts: .branchtargets A, B, C;
            brx.idx %r1, ts;
        A:
            bra C;
        B:
            add.s32 %r1, %r1, 1;
        C:
            exit;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 4);
        assert_eq!(cfg.succs(b(0)), &[b(1), b(2), b(3)]);
        assert_eq!(cfg.succs(b(2)), &[b(3)]);
        assert!(cfg.unresolved().is_empty());
        assert_eq!(cfg.num_edges(), 5);
    }

    #[test]
    fn consecutive_labels_share_a_block_and_fall_off_end() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .pred %p1;
            add.s32 %r1, %r1, 1;
        A:
        B:
            @%p1 bra A;
        C:
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 3);
        assert_eq!(cfg.labels(b(1)).len(), 2);
        assert_eq!(cfg.succs(b(1)), &[b(1), b(2)]);
        assert_eq!(
            cfg.exits(),
            &[b(2)],
            "the empty last block falls off the end"
        );
    }

    #[test]
    fn nested_scopes_and_declarations_do_not_split_blocks() {
        let body = ptx("
            .reg .b32 %r1;
            mov.b32 %r1, 0;
            {
                .reg .b32 %t;
                .loc 1 2 3
                add.s32 %t, %r1, 1;
            }
            ret;
        ");
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.num_blocks(), 1);
        assert_eq!(cfg.insts(b(0)).len(), 3);
    }

    #[test]
    fn unresolved_branch_is_conservative() {
        let mut body = ptx("
            bra A;
        A:
            ret;
        B:
            ret;
        ");
        // A label that has no definition in the body.
        body.labels.push("nowhere".into());
        body.insts[0].operands[0] = Operand::Label(Label::new(body.labels.len() - 1));
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.unresolved(), &[Inst(0)]);
        assert_eq!(cfg.succs(b(0)), &[b(1), b(2)]);
    }

    #[test]
    fn brx_with_missing_table_is_conservative() {
        let body = build(
            "
            brx r1 NOTABLE
        A:
            ret
        ",
        );
        let cfg = Cfg::compute(&body);
        assert_eq!(cfg.unresolved(), &[Inst(0)]);
        assert_eq!(cfg.succs(b(0)), &[b(1)]);
    }
}

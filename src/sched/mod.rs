//! A basic-block scheduler for SASS (issue 16; RegDem §3.3's "schedule the inserted loads and
//! stores", built on the dependency-module design of JASM): a block is a list of [`Item`]s, the
//! instructions of one basic block in order, each marked as ptxas's own ([`Origin::Original`]),
//! added by a rewrite ([`Origin::Inserted`]) or not to be crossed ([`Origin::Fence`]).
//! [`block::hoist`] moves an item up and [`block::sink`] moves one down as far as no
//! [`DepRule`] relates it to the item it would cross.
//!
//! The rules are pluggable ([`deps`]): [`Registers`] (every register file: general, uniform,
//! predicates, uniform predicates; read-after-write, write-after-read, write-after-write),
//! [`Memory`] (state spaces, with region disjointness: shared vs global vs local vs constant,
//! a rewrite's private slots vs the program's shared memory, the same base register with
//! non-overlapping offsets) and [`Control`] (branches, barriers, fences, calls, unknown
//! instructions: nothing crosses them). A client adds its own: the register demoter adds its
//! scoreboard protocol (`sass::demote::schedule`).
//!
//! The scheduler never reorders two original instructions (ptxas's control bits encode their
//! order); it moves inserted ones across them, and the client repairs the control bits the move
//! touches (stall counts, reuse flags).

pub mod block;
pub mod deps;

pub use block::{hoist, sink};
pub use deps::{depends, Access, Control, DepRule, Item, Memory, Origin, Registers, Space};

//! Moving one item of a basic block ([`super`]): up ([`hoist`]) or down ([`sink`]) past every
//! neighbour no rule ties it to, never past an [`Origin::Fence`] or a control instruction
//! ([`super::Control`] is one of the rules the caller passes; a fence stops every move).

use super::deps::{depends, DepRule, Item, Origin};

/// Moves `items[i]` up while the item above it is independent of it under `rules`; returns its
/// new index. Only inserted items move: an original or fence stays where it is.
pub fn hoist(items: &mut [Item], i: usize, rules: &[&dyn DepRule]) -> usize {
    if items[i].origin != Origin::Inserted {
        return i;
    }
    let mut at = i;
    while at > 0
        && items[at - 1].origin != Origin::Fence
        && depends(rules, &items[at - 1], &items[at]).is_none()
    {
        items.swap(at - 1, at);
        at -= 1;
    }
    at
}

/// Moves `items[i]` down while the item below it is independent of it under `rules`; returns its
/// new index. Only inserted items move.
pub fn sink(items: &mut [Item], i: usize, rules: &[&dyn DepRule]) -> usize {
    if items[i].origin != Origin::Inserted {
        return i;
    }
    let mut at = i;
    while at + 1 < items.len()
        && items[at + 1].origin != Origin::Fence
        && depends(rules, &items[at], &items[at + 1]).is_none()
    {
        items.swap(at, at + 1);
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::{self, RZ};
    use crate::sass::isa::{Arch, Control as Bits};
    use crate::sched::deps::{Control, Memory, Registers};

    fn add(d: u32, a: u32, b: u32) -> crate::sass::isa::Instruction {
        encode::iadd3(Arch::Sm80, d, a, b, RZ as u32, Bits::NONE).unwrap()
    }

    #[test]
    fn hoists_to_the_last_producer_and_sinks_to_the_first_consumer() {
        let rules: [&dyn DepRule; 3] = [&Registers, &Memory, &Control];
        // R4 = ..; R6 = ..; R7 = ..; [inserted R5 = R4 + R4]; R8 = R5 + R5
        let mut items = vec![
            Item::original(add(4, 2, 3)),
            Item::original(add(6, 2, 3)),
            Item::original(add(7, 2, 3)),
            Item::inserted(add(5, 4, 4), None),
            Item::original(add(8, 5, 5)),
        ];
        assert_eq!(
            hoist(&mut items, 3, &rules),
            1,
            "stops below the producer of R4"
        );
        assert_eq!(items[1].inst, add(5, 4, 4));
        assert_eq!(
            sink(&mut items, 1, &rules),
            3,
            "stops above the reader of R5"
        );
        // Originals never move.
        assert_eq!(hoist(&mut items, 4, &rules), 4);
    }

    #[test]
    fn fences_stop_every_move() {
        let rules: [&dyn DepRule; 3] = [&Registers, &Memory, &Control];
        let mut items = vec![
            Item::original(add(6, 2, 3)),
            Item::fence(add(7, 2, 3)),
            Item::inserted(add(5, 4, 4), None),
        ];
        assert_eq!(hoist(&mut items, 2, &rules), 2);
        // With no rule at all a fence still holds.
        assert_eq!(hoist(&mut items, 2, &[]), 2);
    }
}

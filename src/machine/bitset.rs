//! A fixed-size dense bit set over `u64` words, the set representation of the dataflow analyses
//! ([`super::liveness`], [`super::ssa`]). Like Cranelift's `bitset` crate and regalloc2's
//! `indexset`, it is small on purpose: the analyses need membership, union, difference and
//! iteration, with union reporting whether anything changed (the fixpoint test).

use std::fmt;

/// A set of `usize` indices below a fixed capacity.
///
/// Indices at or above the capacity are ignored by [`BitSet::insert`] and never contained; this
/// keeps every operation total.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct BitSet {
    words: Vec<u64>,
    capacity: usize,
}

impl BitSet {
    /// An empty set able to hold `0..capacity`.
    pub fn new(capacity: usize) -> BitSet {
        BitSet {
            words: vec![0; capacity.div_ceil(64)],
            capacity,
        }
    }

    /// The full set `0..capacity`.
    pub fn full(capacity: usize) -> BitSet {
        let mut s = BitSet {
            words: vec![!0; capacity.div_ceil(64)],
            capacity,
        };
        s.trim();
        s
    }

    /// The capacity given at construction.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn trim(&mut self) {
        let rem = self.capacity % 64;
        if rem != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << rem) - 1;
            }
        }
    }

    /// Adds `i`; returns true when it was not there before. Out-of-range indices are ignored.
    pub fn insert(&mut self, i: usize) -> bool {
        if i >= self.capacity {
            return false;
        }
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & b != 0;
        self.words[w] |= b;
        !was
    }

    /// Removes `i`; returns true when it was there.
    pub fn remove(&mut self, i: usize) -> bool {
        if i >= self.capacity {
            return false;
        }
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & b != 0;
        self.words[w] &= !b;
        was
    }

    /// True when `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        i < self.capacity && self.words[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// True when the set has no element.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// `self ∪= other`; returns true when `self` changed. Elements of `other` beyond `self`'s
    /// capacity are ignored.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        self.trim();
        changed
    }

    /// `self ∩= other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        for (i, a) in self.words.iter_mut().enumerate() {
            *a &= other.words.get(i).copied().unwrap_or(0);
        }
    }

    /// `self −= other`.
    pub fn subtract(&mut self, other: &BitSet) {
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// Makes `self` a copy of `other`, keeping `self`'s allocation where it can.
    pub fn copy_from(&mut self, other: &BitSet) {
        self.words.clear();
        self.words.extend_from_slice(&other.words);
        self.capacity = other.capacity;
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            words: &self.words,
            index: 0,
            current: self.words.first().copied().unwrap_or(0),
        }
    }
}

/// Iterator over the elements of a [`BitSet`], in increasing order.
pub struct Iter<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl Iterator for Iter<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.current.trailing_zeros() as usize;
                self.current &= self.current - 1;
                return Some(self.index * 64 + bit);
            }
            self.index += 1;
            self.current = *self.words.get(self.index)?;
        }
    }
}

impl<'a> IntoIterator for &'a BitSet {
    type Item = usize;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_iterate() {
        let mut s = BitSet::new(130);
        assert!(s.is_empty());
        assert!(s.insert(0));
        assert!(s.insert(64));
        assert!(s.insert(129));
        assert!(!s.insert(64));
        assert!(!s.insert(130), "out of range is ignored");
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 64, 129]);
        assert_eq!(s.len(), 3);
        assert!(s.remove(64));
        assert!(!s.contains(64));
        assert!(!s.contains(1000));
        assert_eq!(format!("{s:?}"), "{0, 129}");
    }

    #[test]
    fn set_operations() {
        let mut a = BitSet::new(70);
        let mut b = BitSet::new(70);
        a.insert(1);
        a.insert(69);
        b.insert(69);
        b.insert(5);
        assert!(a.union_with(&b));
        assert!(!a.union_with(&b));
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![1, 5, 69]);
        a.subtract(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![1]);
        let mut f = BitSet::full(70);
        assert_eq!(f.len(), 70);
        f.intersect_with(&b);
        assert_eq!(f, b);
        let mut c = BitSet::new(3);
        c.copy_from(&f);
        assert_eq!(c, b);
        assert!(BitSet::new(0).iter().next().is_none());
    }
}

//! The `mbarrier` object (PTX ISA §9.7.13.15): a 64-bit word in shared memory with an expected
//! arrival count, a pending arrival count, a transaction count and a phase. This module is the
//! object's state machine on that word; `exec/mbarrier.rs` reads and writes the word.
//!
//! The ISA leaves the word's encoding opaque (programs may only use it through `mbarrier`
//! instructions); the emulator's encoding is:
//!
//! | bits | field |
//! |---|---|
//! | 0–20 | pending arrivals of the current phase |
//! | 21–41 | expected arrivals per phase |
//! | 42–62 | transaction count (21-bit two's complement: a `complete_tx` may come first) |
//! | 63 | phase parity |
//!
//! A phase completes when its pending arrivals reach zero and its transaction count is zero
//! (checked after every arrival and every transaction-count change):
//! the parity flips and the pending count is reset to the expected count. The `state` an
//! `arrive` returns is the word before the arrival, so its bit 63 names the phase it arrived in.

/// Largest arrival count (2^20 − 1, the ISA's limit).
pub const MAX_COUNT: u64 = (1 << 20) - 1;

const FIELD: u64 = (1 << 21) - 1;

/// A decoded `mbarrier` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mbar {
    /// Pending arrivals of the current phase.
    pub pending: u64,
    /// Expected arrivals per phase.
    pub expected: u64,
    /// Outstanding transaction bytes (may be negative).
    pub tx: i64,
    /// Phase parity.
    pub phase: bool,
}

impl Mbar {
    /// `mbarrier.init` with `count` expected arrivals.
    pub fn init(count: u64) -> Result<Mbar, String> {
        if count == 0 || count > MAX_COUNT {
            return Err(format!(
                "mbarrier.init count {count} is outside 1..={MAX_COUNT}"
            ));
        }
        Ok(Mbar {
            pending: count,
            expected: count,
            tx: 0,
            phase: false,
        })
    }

    /// Decodes a word.
    pub fn decode(w: u64) -> Mbar {
        let tx = ((w >> 42) & FIELD) as i64;
        Mbar {
            pending: w & FIELD,
            expected: (w >> 21) & FIELD,
            tx: if tx >= 1 << 20 { tx - (1 << 21) } else { tx },
            phase: w >> 63 == 1,
        }
    }

    /// Encodes the word.
    pub fn encode(self) -> u64 {
        (self.pending & FIELD)
            | (self.expected & FIELD) << 21
            | (self.tx as u64 & FIELD) << 42
            | u64::from(self.phase) << 63
    }

    /// Completes the phase when nothing is pending.
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase = !self.phase;
            self.pending = self.expected;
        }
    }

    /// `arrive` of `count` arrivals (`drop`: also lowers the expected count for later phases;
    /// `no_complete`: the arrival must not complete the phase).
    pub fn arrive(&mut self, count: u64, drop: bool, no_complete: bool) -> Result<(), String> {
        if count == 0 || count > self.pending {
            return Err(format!(
                "mbarrier arrive of {count} with {} arrival(s) pending in the phase",
                self.pending
            ));
        }
        if no_complete && self.pending == count && self.tx == 0 {
            return Err("mbarrier.arrive.noComplete would complete the phase".into());
        }
        self.pending -= count;
        if drop {
            self.expected = self.expected.saturating_sub(count);
        }
        self.settle();
        Ok(())
    }

    /// `expect_tx` (`sign` +1) or `complete_tx` (−1) of `bytes`.
    pub fn tx(&mut self, bytes: u64, sign: i64) -> Result<(), String> {
        if bytes > MAX_COUNT {
            return Err(format!(
                "mbarrier transaction of {bytes} bytes is out of range"
            ));
        }
        let t = self.tx + sign * bytes as i64;
        if t.abs() >= 1 << 20 {
            return Err(format!("mbarrier transaction count {t} out of range"));
        }
        self.tx = t;
        self.settle();
        Ok(())
    }

    /// `test_wait`/`try_wait` with a `state` from `arrive`: has that phase completed?
    pub fn phase_done(self, state: u64) -> bool {
        self.phase != (state >> 63 == 1)
    }

    /// `test_wait.parity`/`try_wait.parity`: has the phase of parity `parity` completed (the
    /// current phase has the other parity)?
    pub fn parity_done(self, parity: u64) -> bool {
        self.phase != (parity & 1 == 1)
    }
}

/// The word ptxas's code writes for `mbarrier.init` with `count` (`SYNCS.EXCH.64 URZ, [a], URx`
/// on sm_90): 2^20 − count at bit 1 and again at bit 43, computed by the kernel itself as
/// `UIADD3 x, -count, 0x100000` and two shifts (read off ptxas 12.9 for constant and register
/// counts). What the hardware keeps in the other bits is not documented; the SASS emulator only
/// recognises this word and then keeps the object in the emulator's encoding above.
pub fn ptxas_init_word(count: u64) -> u64 {
    let n = (1u64 << 20).wrapping_sub(count) & MAX_COUNT;
    n << 1 | n << 43
}

impl Mbar {
    /// The object an initialisation word of ptxas's code ([`ptxas_init_word`]) describes; None
    /// for any other word.
    pub fn from_ptxas_init(word: u64) -> Option<Mbar> {
        let count = (1u64 << 20) - ((word >> 1) & MAX_COUNT);
        (ptxas_init_word(count) == word)
            .then(|| Mbar::init(count).ok())
            .flatten()
    }
}

/// `mbarrier.pending_count` of a `state`.
pub fn pending_count(state: u64) -> u64 {
    state & FIELD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_init_words_give_their_count_and_nothing_else_is_taken() {
        // `mbarrier.init [a], 5` on sm_90: UR6 = 0x100000 - 5, UR7 = UR6 << 11, UR6 <<= 1.
        let five = (0xffffbu64 << 11) << 32 | 0xffffb << 1;
        assert_eq!(ptxas_init_word(5), five);
        assert_eq!(Mbar::from_ptxas_init(five), Mbar::init(5).ok());
        assert_eq!(
            Mbar::from_ptxas_init(ptxas_init_word(MAX_COUNT)),
            Mbar::init(MAX_COUNT).ok()
        );
        assert_eq!(Mbar::from_ptxas_init(five | 1), None);
        assert_eq!(Mbar::from_ptxas_init(five ^ 1 << 63), None);
        assert_eq!(
            Mbar::from_ptxas_init(0),
            None,
            "a count of 2^20 is out of range"
        );
        assert_eq!(Mbar::from_ptxas_init(Mbar::init(5).unwrap().encode()), None);
    }

    #[test]
    fn encoding_round_trips() {
        let m = Mbar {
            pending: 3,
            expected: 128,
            tx: -4096,
            phase: true,
        };
        assert_eq!(Mbar::decode(m.encode()), m);
        assert_eq!(pending_count(m.encode()), 3);
        assert!(Mbar::init(0).is_err());
        assert!(Mbar::init(MAX_COUNT + 1).is_err());
        assert!(Mbar::init(1).unwrap().tx(u64::MAX, -1).is_err());
    }

    #[test]
    fn phases_complete_after_all_arrivals_and_transactions() {
        let mut m = Mbar::init(2).unwrap();
        let s0 = m.encode();
        m.arrive(1, false, false).unwrap();
        assert!(!m.phase_done(s0));
        m.tx(64, 1).unwrap();
        m.arrive(1, false, false).unwrap();
        assert!(!m.phase_done(s0), "64 bytes still expected");
        assert!(!m.parity_done(0));
        m.tx(64, -1).unwrap();
        assert!(m.phase_done(s0) && m.parity_done(0) && !m.parity_done(1));
        assert_eq!(m.pending, 2);
        // The next phase: complete_tx before expect_tx is fine.
        m.tx(16, -1).unwrap();
        m.arrive(2, false, false).unwrap();
        assert!(!m.parity_done(1));
        m.tx(16, 1).unwrap();
        assert!(m.parity_done(1), "the transaction count is back to zero");
        assert!(!m.parity_done(0));
    }

    #[test]
    fn drop_and_no_complete() {
        let mut m = Mbar::init(3).unwrap();
        m.arrive(1, true, false).unwrap();
        assert_eq!(m.expected, 2);
        assert!(m.arrive(2, false, true).is_err());
        m.arrive(2, false, false).unwrap();
        assert!(m.parity_done(0));
        assert_eq!(m.pending, 2);
    }
}

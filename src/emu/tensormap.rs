//! Tensor maps (CUDA's `CUtensorMap`) as the emulator encodes them, and the tile-mode geometry of
//! the tensor copies `cp.async.bulk.tensor` (PTX ISA §5.5 "Tensors": tensor, bounding box,
//! out-of-bound access, swizzling; §9.7.9.25.5.2 "cp.async.bulk.tensor", `.tile` load mode).
//!
//! A tensor map is 128 opaque bytes that the host builds (`cuTensorMapEncodeTiled`) and passes to
//! the kernel, by value (`.param .align 64 .b8 p[128]`, Triton's host-side descriptors and
//! CUTLASS's `__grid_constant__` maps) or in global memory. NVIDIA does not document the bytes, so
//! the emulator writes its own encoding, from a launch spec's `tensor_map` argument, and reads only
//! that one back: a map it did not write is refused, never guessed at. Both sides of an
//! equivalence run get the same bytes, which is all a proof needs.
//!
//! The encoding (little-endian): bytes 0–3 `WSTM`, 4 the rank (1–5), 5 the element size in
//! bytes, 6 the swizzle (0 none, 1 32 B, 2 64 B, 3 128 B), 7 the out-of-bound fill (0 zeros,
//! 1 the element type's NaN), 8–15 the global address, 16–55 the five dimensions (elements,
//! innermost first, u64), 56–87 the strides of dimensions 1–4 (bytes, u64; dimension 0 is dense),
//! 88–107 the five box dimensions (elements, u32), 108–115 the NaN bits, 116–127 zero.
//!
//! Tile mode: the box at coordinates `c` (signed, innermost first) covers the elements
//! `c + i` for `0 ≤ i < box`; it lies in shared memory row-major and dense (dimension 0
//! contiguous), with the swizzle applied to each byte's shared-memory address — the same XOR
//! pattern the `wgmma` descriptors read ([`super::wgmma::Swizzle`]). Elements outside the tensor
//! read as the fill and are not written by a store; the whole box counts as transaction bytes.

use super::wgmma::Swizzle;

/// Size of a tensor map in bytes.
pub const MAP_BYTES: usize = 128;
/// Most dimensions a tensor map has.
pub const MAX_RANK: usize = 5;
const MAGIC: &[u8; 4] = b"WSTM";

/// A decoded tensor map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// Number of dimensions (1–5).
    pub rank: usize,
    /// Element size in bytes (1, 2, 4 or 8).
    pub elem_size: u32,
    /// How the box lies in shared memory.
    pub swizzle: Swizzle,
    /// The bits an out-of-bound element reads as (None: zeros).
    pub nan: Option<u64>,
    /// The tensor's global address.
    pub base: u64,
    /// Extent of each dimension in elements, innermost first (unused ones 1).
    pub dims: [u64; MAX_RANK],
    /// Byte stride of each dimension (`strides[0]` is the element size).
    pub strides: [u64; MAX_RANK],
    /// Box extent of each dimension in elements (unused ones 1).
    pub boxdim: [u32; MAX_RANK],
}

fn swizzle_code(s: Swizzle) -> u8 {
    match s {
        Swizzle::None => 0,
        Swizzle::B32 => 1,
        Swizzle::B64 => 2,
        Swizzle::B128 => 3,
    }
}

/// Parses a swizzle name of a launch spec: `none`, `32B`, `64B` or `128B`.
pub fn swizzle_named(name: &str) -> Option<Swizzle> {
    Some(match name {
        "none" => Swizzle::None,
        "32B" => Swizzle::B32,
        "64B" => Swizzle::B64,
        "128B" => Swizzle::B128,
        _ => return None,
    })
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

impl TensorMap {
    /// Checks the map against the rules `cuTensorMapEncodeTiled` enforces for tile mode (the
    /// ones a copy depends on).
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_RANK).contains(&self.rank) {
            return Err(format!("rank {} (1 to 5)", self.rank));
        }
        if ![1, 2, 4, 8].contains(&self.elem_size) {
            return Err(format!(
                "element size {} (1, 2, 4 or 8 bytes)",
                self.elem_size
            ));
        }
        if self.base % 16 != 0 {
            return Err(format!(
                "global address {:#x} is not 16-byte aligned",
                self.base
            ));
        }
        for d in 0..MAX_RANK {
            let used = d < self.rank;
            let (n, b) = (self.dims[d], self.boxdim[d]);
            if used && !(1..=1 << 32).contains(&n) {
                return Err(format!("dimension {d} has {n} elements (1 to 2^32)"));
            }
            if used && !(1..=256).contains(&b) {
                return Err(format!("box dimension {d} is {b} (1 to 256)"));
            }
            if !used && (n != 1 || b != 1) {
                return Err(format!("dimension {d} is beyond the rank {}", self.rank));
            }
            if used && d > 0 && (self.strides[d] % 16 != 0 || self.strides[d] >= 1 << 40) {
                return Err(format!(
                    "stride of dimension {d} is {} bytes (a multiple of 16 below 2^40)",
                    self.strides[d]
                ));
            }
        }
        if self.strides[0] != u64::from(self.elem_size) {
            return Err("dimension 0 must be dense".into());
        }
        let inner = u64::from(self.boxdim[0]) * u64::from(self.elem_size);
        if inner % 16 != 0 {
            return Err(format!(
                "the box's inner dimension is {inner} bytes (a multiple of 16)"
            ));
        }
        if self.swizzle != Swizzle::None && inner > self.swizzle.width() {
            return Err(format!(
                "the box's inner dimension is {inner} bytes, more than the {}-byte swizzle",
                self.swizzle.width()
            ));
        }
        if self.nan.is_some() && self.elem_size == 1 {
            return Err("NaN fill needs a 16-, 32- or 64-bit element".into());
        }
        Ok(())
    }

    /// The 128 bytes of the map.
    pub fn encode(&self) -> [u8; MAP_BYTES] {
        let mut b = [0u8; MAP_BYTES];
        b[..4].copy_from_slice(MAGIC);
        b[4] = self.rank as u8;
        b[5] = self.elem_size as u8;
        b[6] = swizzle_code(self.swizzle);
        b[7] = u8::from(self.nan.is_some());
        b[8..16].copy_from_slice(&self.base.to_le_bytes());
        for d in 0..MAX_RANK {
            b[16 + 8 * d..24 + 8 * d].copy_from_slice(&self.dims[d].to_le_bytes());
            b[88 + 4 * d..92 + 4 * d].copy_from_slice(&self.boxdim[d].to_le_bytes());
        }
        for d in 1..MAX_RANK {
            b[48 + 8 * d..56 + 8 * d].copy_from_slice(&self.strides[d].to_le_bytes());
        }
        b[108..116].copy_from_slice(&self.nan.unwrap_or(0).to_le_bytes());
        b
    }

    /// Reads a map the emulator encoded (and validates it).
    pub fn decode(b: &[u8; MAP_BYTES]) -> Result<TensorMap, String> {
        if &b[..4] != MAGIC {
            return Err(
                "not a tensor map the emulator wrote (launch specs give tensor maps as \
                        `tensor_map` arguments)"
                    .into(),
            );
        }
        let swizzle = match b[6] {
            0 => Swizzle::None,
            1 => Swizzle::B32,
            2 => Swizzle::B64,
            3 => Swizzle::B128,
            s => return Err(format!("swizzle code {s}")),
        };
        let elem_size = u32::from(b[5]);
        let mut m = TensorMap {
            rank: usize::from(b[4]),
            elem_size,
            swizzle,
            nan: (b[7] == 1).then(|| u64_at(b, 108)),
            base: u64_at(b, 8),
            dims: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            boxdim: [1; MAX_RANK],
        };
        m.strides[0] = u64::from(elem_size);
        for d in 0..MAX_RANK {
            m.dims[d] = u64_at(b, 16 + 8 * d);
            m.boxdim[d] = u32_at(b, 88 + 4 * d);
        }
        for d in 1..MAX_RANK {
            m.strides[d] = u64_at(b, 48 + 8 * d);
        }
        if b[7] > 1 || b[116..].iter().any(|&x| x != 0) {
            return Err("reserved bytes are not zero".into());
        }
        m.validate()?;
        Ok(m)
    }

    /// Bytes of one box (the transaction bytes of a copy into shared memory).
    pub fn box_bytes(&self) -> u64 {
        self.boxdim[..self.rank]
            .iter()
            .map(|&b| u64::from(b))
            .product::<u64>()
            * u64::from(self.elem_size)
    }

    /// Bytes the tensor spans in global memory from its address.
    pub fn extent_bytes(&self) -> u64 {
        (1..self.rank)
            .map(|d| (self.dims[d] - 1) * self.strides[d])
            .sum::<u64>()
            + self.dims[0] * u64::from(self.elem_size)
    }

    /// Calls `f(offset, global)` for every element of the box at `coords` (innermost first), in
    /// shared-memory order, and stops at its first error: `offset` is the element's byte offset in
    /// the dense, unswizzled box, `global` its global address, or None when it lies outside the
    /// tensor.
    pub fn try_for_each_element<E>(
        &self,
        coords: &[i32],
        mut f: impl FnMut(u64, Option<u64>) -> Result<(), E>,
    ) -> Result<(), E> {
        let e = u64::from(self.elem_size);
        let total: u64 = self.box_bytes() / e;
        let mut idx = [0u32; MAX_RANK];
        for n in 0..total {
            let mut global = Some(self.base);
            for d in 0..self.rank {
                let c = i64::from(coords[d]) + i64::from(idx[d]);
                global = match global {
                    Some(g) if c >= 0 && (c as u64) < self.dims[d] => {
                        Some(g + c as u64 * self.strides[d])
                    }
                    _ => None,
                };
            }
            f(n * e, global)?;
            for (i, &b) in idx.iter_mut().zip(&self.boxdim[..self.rank]) {
                *i += 1;
                if *i < b {
                    break;
                }
                *i = 0;
            }
        }
        Ok(())
    }
}

/// The shared-memory address of byte offset `offset` of a box that starts at `start`.
pub fn box_address(swizzle: Swizzle, start: u64, offset: u64) -> u64 {
    swizzle.apply(start + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_2d(dims: [u64; 2], boxdim: [u32; 2], swizzle: Swizzle) -> TensorMap {
        TensorMap {
            rank: 2,
            elem_size: 2,
            swizzle,
            nan: None,
            base: 0x1000,
            dims: [dims[0], dims[1], 1, 1, 1],
            strides: [2, dims[0] * 2, 0, 0, 0],
            boxdim: [boxdim[0], boxdim[1], 1, 1, 1],
        }
    }

    #[test]
    fn encoding_round_trips_and_foreign_bytes_are_refused() {
        let mut m = map_2d([64, 100], [64, 32], Swizzle::B128);
        m.nan = Some(0x7fff);
        let b = m.encode();
        assert_eq!(TensorMap::decode(&b), Ok(m));
        let mut foreign = b;
        foreign[0] = 0;
        assert!(TensorMap::decode(&foreign)
            .unwrap_err()
            .contains("tensor_map"));
        let mut reserved = b;
        reserved[120] = 1;
        assert!(TensorMap::decode(&reserved).is_err());
    }

    #[test]
    fn invalid_maps_are_refused() {
        // 64 f16 = 128 bytes do not fit a 64-byte swizzle row.
        let m = map_2d([64, 64], [64, 8], Swizzle::B64);
        assert!(m.validate().unwrap_err().contains("swizzle"));
        // 4 f16 = 8 bytes: the inner box dimension must be a multiple of 16 bytes.
        let m = map_2d([64, 64], [4, 8], Swizzle::None);
        assert!(m.validate().unwrap_err().contains("multiple of 16"));
        let mut m = map_2d([64, 64], [64, 8], Swizzle::B128);
        m.strides[1] = 120;
        assert!(m.validate().unwrap_err().contains("stride"));
        m.strides[1] = 128;
        m.boxdim[1] = 257;
        assert!(m.validate().unwrap_err().contains("box dimension 1"));
    }

    #[test]
    fn a_box_walks_dimension_zero_first_and_marks_elements_outside() {
        // A 3×2 tensor of 8-byte elements ... box of 2×2 at (2, 1): columns 2, 3 of rows 1, 2.
        let m = TensorMap {
            rank: 2,
            elem_size: 8,
            swizzle: Swizzle::None,
            nan: None,
            base: 0,
            dims: [3, 2, 1, 1, 1],
            strides: [8, 32, 0, 0, 0],
            boxdim: [2, 2, 1, 1, 1],
        };
        let mut seen = Vec::new();
        let _ = m.try_for_each_element(&[2, 1], |off, g| {
            seen.push((off, g));
            Ok::<(), ()>(())
        });
        // (2,1) in, (3,1) out (column 3 of 3), (2,2) and (3,2) out (row 2 of 2).
        assert_eq!(
            seen,
            vec![(0, Some(32 + 16)), (8, None), (16, None), (24, None)]
        );
        let mut neg = Vec::new();
        let _ = m.try_for_each_element(&[-1, 0], |off, g| {
            neg.push((off, g));
            Ok::<(), ()>(())
        });
        assert_eq!(
            neg,
            vec![(0, None), (8, Some(0)), (16, None), (24, Some(32))]
        );
        assert_eq!(m.box_bytes(), 32);
        assert_eq!(m.extent_bytes(), 32 + 24);
    }

    #[test]
    fn the_128_byte_swizzle_moves_chunks_by_row() {
        // Row r of a 128-byte-wide box starts at 128·r; its chunk k lands at chunk k ^ (r mod 8).
        for r in 0..16u64 {
            for k in 0..8u64 {
                let a = box_address(Swizzle::B128, 0x400, 128 * r + 16 * k);
                assert_eq!(a, 0x400 + 128 * r + 16 * (k ^ (r % 8)));
            }
        }
        assert_eq!(box_address(Swizzle::None, 0x400, 0x90), 0x490);
    }
}

//! Bounds-checked little-endian reads and writes on byte slices, the only way the cubin code
//! touches raw bytes: every read returns [`ElfError::Malformed`] instead of panicking when it would
//! run past the end (sass-and-cubin-format.md §8: cubins are little-endian ELF64).

use super::ElfError;

/// Reads `N` bytes at `off`, or fails with a message naming `what`.
fn array<const N: usize>(data: &[u8], off: u64, what: &'static str) -> Result<[u8; N], ElfError> {
    let start = usize::try_from(off).map_err(|_| ElfError::Malformed { what, offset: off })?;
    let end = start
        .checked_add(N)
        .ok_or(ElfError::Malformed { what, offset: off })?;
    let s = data
        .get(start..end)
        .ok_or(ElfError::Malformed { what, offset: off })?;
    let mut a = [0u8; N];
    a.copy_from_slice(s);
    Ok(a)
}

/// A little-endian `u8` at `off`.
pub fn u8_at(data: &[u8], off: u64, what: &'static str) -> Result<u8, ElfError> {
    Ok(array::<1>(data, off, what)?[0])
}

/// A little-endian `u16` at `off`.
pub fn u16_at(data: &[u8], off: u64, what: &'static str) -> Result<u16, ElfError> {
    Ok(u16::from_le_bytes(array(data, off, what)?))
}

/// A little-endian `u32` at `off`.
pub fn u32_at(data: &[u8], off: u64, what: &'static str) -> Result<u32, ElfError> {
    Ok(u32::from_le_bytes(array(data, off, what)?))
}

/// A little-endian `u64` at `off`.
pub fn u64_at(data: &[u8], off: u64, what: &'static str) -> Result<u64, ElfError> {
    Ok(u64::from_le_bytes(array(data, off, what)?))
}

/// The sub-slice `[off, off + len)`, or an error naming `what`.
pub fn slice<'a>(
    data: &'a [u8],
    off: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8], ElfError> {
    let bad = ElfError::Malformed { what, offset: off };
    let start = usize::try_from(off).map_err(|_| bad.clone())?;
    let len = usize::try_from(len).map_err(|_| bad.clone())?;
    let end = start.checked_add(len).ok_or(bad.clone())?;
    data.get(start..end).ok_or(bad)
}

/// The NUL-terminated string starting at `off` in a string table.
pub fn cstr(data: &[u8], off: u64, what: &'static str) -> Result<String, ElfError> {
    let bad = ElfError::Malformed { what, offset: off };
    let start = usize::try_from(off).map_err(|_| bad.clone())?;
    let rest = data.get(start..).ok_or(bad.clone())?;
    let n = rest.iter().position(|&b| b == 0).ok_or(bad)?;
    Ok(String::from_utf8_lossy(&rest[..n]).into_owned())
}

/// Appends a little-endian `u16`.
pub fn push_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a little-endian `u32`.
pub fn push_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a little-endian `u64`.
pub fn push_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Overwrites `bytes.len()` bytes at `off` (which the caller has sized the buffer for).
pub fn put(out: &mut [u8], off: usize, bytes: &[u8]) {
    if let Some(dst) = off
        .checked_add(bytes.len())
        .and_then(|end| out.get_mut(off..end))
    {
        dst.copy_from_slice(bytes);
    }
}

/// `v` rounded up to a multiple of `align` (an alignment of 0 or 1 leaves it unchanged).
pub fn align_up(v: u64, align: u64) -> u64 {
    if align <= 1 {
        return v;
    }
    match v % align {
        0 => v,
        r => v.saturating_add(align - r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked() {
        let d = [1u8, 2, 3, 4, 5];
        assert_eq!(u32_at(&d, 0, "x").unwrap(), 0x0403_0201);
        assert!(u32_at(&d, 2, "x").is_err());
        assert!(u64_at(&d, u64::MAX, "x").is_err());
        assert!(slice(&d, 4, u64::MAX, "x").is_err());
        assert_eq!(cstr(b"ab\0cd\0", 3, "x").unwrap(), "cd");
        assert!(cstr(b"ab", 0, "x").is_err());
        assert_eq!(align_up(129, 128), 256);
        assert_eq!(align_up(7, 0), 7);
    }
}

//! Thread-block clusters (sm_90, PTX ISA 7.8): the shape of a launch's clusters, the special
//! registers that follow from it, and the cluster barrier, for both emulators (the PTX
//! emulator's `%cluster_*`, `%clusterid`, `%nclusterid`, `%is_explicit_cluster` and
//! `barrier.cluster`; the SASS emulator's `SR_CgaCtaId`, the launch constants ptxas reads for
//! them, and `UCGABAR_ARV`/`UCGABAR_WAIT`).
//!
//! The shape comes from the kernel (`.reqnctapercluster`, or the cubin's `EIATTR_CTA_PER_CLUSTER`)
//! or from the launch spec's `cluster` (a launch with `cudaLaunchKernelEx`'s cluster dimension);
//! without either, every CTA is a cluster of one. Both emulators run the CTAs of one cluster
//! together (in turns, with the other CTAs' shared memory reachable) and the clusters of a grid
//! one after another.
//!
//! The barrier ([`ClusterBarrier`]): every thread of the cluster that has not exited must arrive
//! before any waits past it. Each lane records the phase it arrived in; an arrival completes the
//! phase when the arrivals equal the threads still running, and so does an exit of the last
//! missing threads (an exited thread is not waited for, and its arrival no longer counts). A
//! wait passes for a lane whose phase has completed; otherwise its warp waits and tries again,
//! as on an incomplete `mbarrier` wait.

/// A cluster special register (PTX ISA, "Special Registers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterSreg {
    /// `%cluster_ctarank`: the CTA's rank in its cluster (x fastest).
    CtaRank,
    /// `%cluster_nctarank`: CTAs per cluster.
    NctaRank,
    /// `%cluster_ctaid.{x,y,z}`: the CTA's position in its cluster.
    Ctaid(u8),
    /// `%cluster_nctaid.{x,y,z}`: the cluster's shape.
    Nctaid(u8),
    /// `%clusterid.{x,y,z}`: the cluster's position in the grid.
    ClusterId(u8),
    /// `%nclusterid.{x,y,z}`: clusters in the grid.
    NclusterId(u8),
    /// `%is_explicit_cluster`: whether the launch set a cluster shape.
    IsExplicit,
}

impl ClusterSreg {
    /// The PTX name.
    pub fn name(self) -> &'static str {
        const XYZ: [[&str; 3]; 4] = [
            ["%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z"],
            [
                "%cluster_nctaid.x",
                "%cluster_nctaid.y",
                "%cluster_nctaid.z",
            ],
            ["%clusterid.x", "%clusterid.y", "%clusterid.z"],
            ["%nclusterid.x", "%nclusterid.y", "%nclusterid.z"],
        ];
        match self {
            ClusterSreg::CtaRank => "%cluster_ctarank",
            ClusterSreg::NctaRank => "%cluster_nctarank",
            ClusterSreg::Ctaid(c) => XYZ[0][c as usize % 3],
            ClusterSreg::Nctaid(c) => XYZ[1][c as usize % 3],
            ClusterSreg::ClusterId(c) => XYZ[2][c as usize % 3],
            ClusterSreg::NclusterId(c) => XYZ[3][c as usize % 3],
            ClusterSreg::IsExplicit => "%is_explicit_cluster",
        }
    }
}

/// Most CTAs in a cluster (sm_90 with the non-portable size opted in; 8 portably).
pub const MAX_CLUSTER_CTAS: u32 = 16;

/// The cluster shape of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterShape {
    /// CTAs per cluster in x, y, z.
    pub dims: [u32; 3],
    /// Whether the kernel or the launch set the shape (`%is_explicit_cluster`).
    pub explicit: bool,
}

impl Default for ClusterShape {
    fn default() -> Self {
        ClusterShape {
            dims: [1, 1, 1],
            explicit: false,
        }
    }
}

impl ClusterShape {
    /// The shape of a launch of `grid` CTAs: the kernel's `declared` shape (`.reqnctapercluster`)
    /// and the spec's `launch` shape must agree where both are given; `explicit_kernel` is a
    /// kernel marked `.explicitcluster`, which needs a shape from one of them. Every grid
    /// dimension must be a multiple of the cluster's (as `cudaLaunchKernelEx` requires).
    pub fn resolve(
        declared: Option<[u32; 3]>,
        launch: Option<[u32; 3]>,
        explicit_kernel: bool,
        grid: [u32; 3],
    ) -> Result<ClusterShape, String> {
        let dims =
            match (declared, launch) {
                (Some(d), Some(l)) if d != l => {
                    return Err(format!(
                    "the spec's cluster {l:?} differs from the kernel's .reqnctapercluster {d:?}"
                ))
                }
                (Some(d), _) | (None, Some(d)) => d,
                (None, None) if explicit_kernel => return Err(
                    "the kernel is .explicitcluster: give the launch's cluster shape (`cluster`)"
                        .into(),
                ),
                (None, None) => return Ok(ClusterShape::default()),
            };
        let ctas = dims.iter().map(|&d| u64::from(d)).product::<u64>();
        if dims.contains(&0) || ctas > u64::from(MAX_CLUSTER_CTAS) {
            return Err(format!(
                "cluster {dims:?}: 1 to {MAX_CLUSTER_CTAS} CTAs per cluster"
            ));
        }
        if let Some(c) = (0..3).find(|&c| grid[c] % dims[c] != 0) {
            return Err(format!(
                "grid {grid:?} is not a multiple of the cluster {dims:?} in dimension {c}"
            ));
        }
        Ok(ClusterShape {
            dims,
            explicit: true,
        })
    }

    /// CTAs per cluster.
    pub fn ctas(&self) -> u32 {
        self.dims.iter().product()
    }

    /// The value of `r` in the CTA `ctaid` of a grid of `nctaid` CTAs.
    pub fn value(&self, r: ClusterSreg, ctaid: [u32; 3], nctaid: [u32; 3]) -> u64 {
        let d = self.dims;
        let inner = |c: usize| ctaid[c] % d[c];
        u64::from(match r {
            ClusterSreg::CtaRank => inner(0) + d[0] * (inner(1) + d[1] * inner(2)),
            ClusterSreg::NctaRank => self.ctas(),
            ClusterSreg::Ctaid(c) => inner(c as usize),
            ClusterSreg::Nctaid(c) => d[c as usize],
            ClusterSreg::ClusterId(c) => ctaid[c as usize] / d[c as usize],
            ClusterSreg::NclusterId(c) => nctaid[c as usize] / d[c as usize],
            ClusterSreg::IsExplicit => u32::from(self.explicit),
        })
    }

    /// The f32 factor ptxas multiplies a CTA index by and truncates to get the cluster index in
    /// dimension `c` (`%clusterid` on sm_90: `F2I.TRUNC(I2F(ctaid) · c[0x0][0x150 + 4c])`): a
    /// value for which that gives `ctaid / dims[c]` for every CTA index below `extent`, or `None`
    /// when neither the nearest f32 to the reciprocal nor its upper neighbour does. The driver's
    /// bits are not documented; any value that makes the instruction sequence compute the
    /// register's defined value is as good as the driver's for the emulator.
    pub fn index_factor(&self, c: usize, extent: u32) -> Option<f32> {
        let d = self.dims[c];
        let nearest = 1.0f32 / d as f32;
        [nearest, f32::from_bits(nearest.to_bits() + 1)]
            .into_iter()
            .find(|&f| (0..extent).all(|i| ((i as f32) * f) as u32 == i / d))
    }
}

/// No arrival pending (a lane's entry in [`ClusterBarrier`]'s per-lane phases).
pub const NOT_ARRIVED: u64 = u64::MAX;

/// A cluster barrier used out of order by one lane (a fault of the program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierMisuse {
    /// What the lane did.
    pub what: &'static str,
    /// The lane.
    pub lane: usize,
}

/// The cluster barrier's state.
#[derive(Clone, Debug, Default)]
pub struct ClusterBarrier {
    /// The current phase.
    phase: u64,
    /// Threads still running that arrived in the current phase.
    arrived: u32,
    /// Threads of the cluster still running.
    running: u32,
}

impl ClusterBarrier {
    /// A barrier for a cluster of `threads` threads.
    pub fn new(threads: u32) -> Self {
        ClusterBarrier {
            phase: 0,
            arrived: 0,
            running: threads,
        }
    }

    /// `barrier.cluster.arrive` by `mask`'s lanes (`phases`: each lane's pending arrival);
    /// true when it completed the phase.
    pub fn arrive(&mut self, phases: &mut [u64; 32], mask: u32) -> Result<bool, BarrierMisuse> {
        for l in lanes(mask) {
            if phases[l] != NOT_ARRIVED {
                return Err(BarrierMisuse {
                    what: "a cluster barrier arrival twice without a wait between",
                    lane: l,
                });
            }
            phases[l] = self.phase;
            self.arrived += 1;
        }
        Ok(self.complete())
    }

    /// `barrier.cluster.wait` by `mask`'s lanes: true when all may pass (their pending
    /// arrivals are then cleared), false when the warp must wait.
    pub fn wait(&self, phases: &mut [u64; 32], mask: u32) -> Result<bool, BarrierMisuse> {
        for l in lanes(mask) {
            if phases[l] == NOT_ARRIVED {
                return Err(BarrierMisuse {
                    what: "a cluster barrier wait without an arrival before it",
                    lane: l,
                });
            }
            if phases[l] == self.phase {
                return Ok(false);
            }
        }
        for l in lanes(mask) {
            phases[l] = NOT_ARRIVED;
        }
        Ok(true)
    }

    /// `mask`'s lanes exit; true when that completed the phase.
    pub fn exit(&mut self, phases: &[u64; 32], mask: u32) -> bool {
        for l in lanes(mask) {
            self.running -= 1;
            if phases[l] == self.phase {
                self.arrived -= 1;
            }
        }
        self.complete()
    }

    fn complete(&mut self) -> bool {
        if self.running > 0 && self.arrived == self.running {
            self.phase += 1;
            self.arrived = 0;
            true
        } else {
            false
        }
    }
}

/// The lanes of a mask, in increasing order.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_of_a_two_by_two_cluster() {
        let s = ClusterShape::resolve(Some([2, 2, 1]), None, false, [4, 2, 1]).unwrap();
        let v = |r, ctaid| s.value(r, ctaid, [4, 2, 1]);
        assert_eq!(v(ClusterSreg::CtaRank, [3, 1, 0]), 3);
        assert_eq!(v(ClusterSreg::CtaRank, [2, 0, 0]), 0);
        assert_eq!(v(ClusterSreg::CtaRank, [1, 0, 0]), 1);
        assert_eq!(v(ClusterSreg::NctaRank, [0, 0, 0]), 4);
        assert_eq!(v(ClusterSreg::Ctaid(0), [3, 1, 0]), 1);
        assert_eq!(v(ClusterSreg::ClusterId(0), [3, 1, 0]), 1);
        assert_eq!(v(ClusterSreg::ClusterId(1), [3, 1, 0]), 0);
        assert_eq!(v(ClusterSreg::NclusterId(0), [0, 0, 0]), 2);
        assert_eq!(v(ClusterSreg::NclusterId(1), [0, 0, 0]), 1);
        assert_eq!(v(ClusterSreg::IsExplicit, [0, 0, 0]), 1);
    }

    #[test]
    fn without_a_shape_every_cta_is_a_cluster() {
        let s = ClusterShape::resolve(None, None, false, [5, 3, 1]).unwrap();
        assert_eq!(s.value(ClusterSreg::ClusterId(0), [4, 2, 0], [5, 3, 1]), 4);
        assert_eq!(s.value(ClusterSreg::NclusterId(1), [4, 2, 0], [5, 3, 1]), 3);
        assert_eq!(s.value(ClusterSreg::CtaRank, [4, 2, 0], [5, 3, 1]), 0);
        assert_eq!(s.value(ClusterSreg::IsExplicit, [4, 2, 0], [5, 3, 1]), 0);
    }

    #[test]
    fn shapes_that_cannot_launch_are_refused() {
        assert!(ClusterShape::resolve(Some([2, 1, 1]), Some([4, 1, 1]), false, [8, 1, 1]).is_err());
        assert!(ClusterShape::resolve(None, Some([3, 1, 1]), false, [4, 1, 1]).is_err());
        assert!(ClusterShape::resolve(None, Some([4, 4, 2]), false, [8, 8, 2]).is_err());
        assert!(ClusterShape::resolve(None, None, true, [8, 1, 1]).is_err());
    }

    #[test]
    fn index_factor_divides_exactly() {
        for d in 1..=MAX_CLUSTER_CTAS {
            let s = ClusterShape {
                dims: [d, 1, 1],
                explicit: true,
            };
            let f = s.index_factor(0, 1 << 16).expect("a factor");
            for i in 0..1u32 << 16 {
                assert_eq!(((i as f32) * f) as u32, i / d, "d {d} i {i}");
            }
        }
    }

    #[test]
    fn a_phase_completes_when_every_running_thread_arrived() {
        let mut b = ClusterBarrier::new(64);
        let (mut w0, mut w1) = ([NOT_ARRIVED; 32], [NOT_ARRIVED; 32]);
        assert!(!b.arrive(&mut w0, u32::MAX).unwrap());
        assert!(!b.wait(&mut w0, u32::MAX).unwrap());
        assert!(b.arrive(&mut w1, u32::MAX).unwrap());
        assert!(b.wait(&mut w0, u32::MAX).unwrap());
        assert!(b.wait(&mut w1, u32::MAX).unwrap());
        assert!(b.wait(&mut w1, 1).is_err(), "a wait needs an arrival");
    }

    #[test]
    fn exited_threads_are_not_waited_for() {
        let mut b = ClusterBarrier::new(64);
        let (mut w0, w1) = ([NOT_ARRIVED; 32], [NOT_ARRIVED; 32]);
        assert!(!b.arrive(&mut w0, u32::MAX).unwrap());
        assert!(!b.exit(&w1, 0xffff));
        assert!(b.exit(&w1, 0xffff_0000));
        assert!(b.wait(&mut w0, u32::MAX).unwrap());
        // An arrival of an exiting thread no longer counts.
        let mut b = ClusterBarrier::new(3);
        let mut w = [NOT_ARRIVED; 32];
        assert!(!b.arrive(&mut w, 0b11).unwrap());
        assert!(!b.exit(&w, 0b10));
        assert!(b.arrive(&mut w, 0b100).unwrap());
    }
}

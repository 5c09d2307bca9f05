"""Foreign Triton kernels: FlagGems' (BAAI's Triton implementations of PyTorch's operators, PyPI
`flag-gems`), launched as FlagGems' own wrappers launch them, for the checks Liger-Kernel's get
(issue 12: "hold on code you did not write").

FlagGems is written in another style than Liger-Kernel and our suite: operator kernels rather
than fused layers — scans (`tl.cumsum`, `tl.associative_scan` over (value, index) pairs), argmax
with tie-breaking, top-k with a bitonic argsort, a per-lane binary search, Philox random numbers
(`tl.philox`), gathers through 64-bit indices, atomics, Welford reductions through `tl.reduce`
with a user combine function, `/` and `%` on program ids and offsets (the matmul's grouped
ordering, the convolution's im2col), a 3-D grid, 64-bit addressing (`.to(tl.int64)`) throughout.
Each case takes a configuration from FlagGems' own tuning table or heuristics
(`runtime/backend/_nvidia/tune_configs.yaml`, `heuristics_config_utils.py`) and shapes that are
small (the emulator runs a launch in seconds) and not powers of two (masks matter).

tests/triton/flaggems_loader.py imports the op modules without torch and without FlagGems'
package set-up.
"""

from __future__ import annotations

import flaggems_loader
from foreign import Arg, ForeignCase, f32, i32, i64, ptr

flaggems_loader.install()

PACKAGE = "flag_gems.ops"


def case(name, ref, args, constexprs, warps, grid, stages=3, archs=("sm_80", "sm_90")):
    return ForeignCase(f"fg_{name}", ref, tuple(args), constexprs, warps, grid, stages, archs,
                       PACKAGE)


def _cumsum():
    # The first pass of FlagGems' multi-block scan: each block's inclusive scan and its sum.
    n, block = 3000, 1024
    parts = -(-n // block)
    return case("cumsum_part", "cumsum:scan_part_sum_kernel", (
        ptr("inp", "fp32", n), ptr("out", "fp32", n, "zero"),
        ptr("partial_sum", "fp32", parts, "zero"), i32("n_elements", n), i32("part_num", parts),
    ), {"BLOCK_SIZE": block}, 4, (parts,))


def _dropout():
    # heuristics: BLOCK 1024 and 16 warps above 1024 elements; 4 values per Philox call.
    n, block = 5000, 1024
    return case("dropout_fwd", "dropout:dropout_forward_kernel", (
        ptr("X", "fp16", n), ptr("Y", "fp16", n, "zero"), ptr("dropout_mask", "i1", n, "zero"),
        i32("N", n), f32("p", 0.3), i64("philox_seed", 0x1234_5678_9ABC), i64("philox_offset", 40),
    ), {"BLOCK": block}, 16, (-(-n // (block * 4)),))


def _argmax():
    # Rows longer than the tile: the looped form, with a masked remainder.
    m, n, tile = 4, 3000, 1024
    return case("argmax_inner", "argmax:argmax_kernel_inner", (
        ptr("inp", "fp32", m * n), ptr("out_index", "i64", m, "zero"), i32("M", m), i32("N", n),
    ), {"TILE_N": tile, "ONE_TILE_PER_CTA": False}, 8, (m,))


def _embedding():
    # Rows gathered through int64 indices.
    tokens, vocab, hidden = 6, 50, 300
    return case("embedding", "embedding:embedding_kernel", (
        ptr("out_ptr", "bf16", tokens * hidden, "zero"),
        Arg("in_ptr", "*i64", True, buf=("i64", tokens, ("range", 0, vocab))),
        ptr("weight_ptr", "bf16", vocab * hidden),
    ), {"N": hidden, "BLOCK_SIZE": 512}, 4, (tokens,))


def _scatter_add():
    # atomic_add into rows of 20; sources are ones so that the sums are exact whatever the
    # order the atomics land in.
    rows, index_n, inp_n = 7, 33, 20
    n = rows * index_n
    return case("scatter_add", "scatter_add_:scatter_add_kernel_1", (
        i32("index_dim_n", index_n), i32("inp_dim_n", inp_n),
        ptr("out_ptr", "fp32", rows * inp_n, "zero"),
        Arg("index_ptr", "*i64", True, buf=("i64", n, ("range", 0, inp_n))),
        ptr("src_ptr", "fp32", n, "ones"), i32("n_elements", n),
    ), {"BLOCK_SIZE": 256, "LOOP": 1}, 4, (-(-n // 256),))


def _nonzero():
    # Every element nonzero (its prefix sum is then 1, 2, …): each thread writes its 2-D index.
    shape = (25, 40)
    n = shape[0] * shape[1]
    return case("nonzero", "nonzero:nonzero_kernel", (
        ptr("inp", "i1", n, "ones"),
        Arg("prefix_sum", "*i64", True, buf=("i64", n, ("list", range(1, n + 1)))),
        ptr("out", "i64", 2 * n, "zero"), i32("n_elements", n),
        Arg("shape", "*i64", True, buf=("i64", 2, ("list", shape))),
    ), {"ndim": 2, "BLOCK_SIZE": 256}, 4, (-(-n // 256),))


def _var_mean():
    # Welford over rows through tl.reduce with FlagGems' combine function.
    m, n, block_m, block_n = 6, 700, 4, 256
    return case("var_mean", "var_mean:var_mean_welford_kernel", (
        ptr("X", "fp32", m * n), ptr("Var", "fp32", m, "zero"), ptr("Mean", "fp32", m, "zero"),
        i32("M", m), i32("N", n), f32("correction", 1.0),
    ), {"BLOCK_M": block_m, "BLOCK_N": block_n}, 4, (-(-m // block_m),))


def _mm():
    # tune_configs.yaml `mm`: 64×128×64, 3 stages, 4 warps; grouped ordering (GROUP_M 8), rows
    # and columns wrapped with %, a peeled last K step.
    m, n, k = 100, 200, 80
    bm, bn, bk = 64, 128, 64
    return case("mm", "mm:mm_kernel_general", (
        ptr("A", "fp16", m * k), ptr("B", "fp16", k * n), ptr("C", "fp16", m * n, "zero"),
        i32("M", m), i32("N", n), i32("K", k), i32("stride_am", k), i32("stride_ak", 1),
        i32("stride_bk", n), i32("stride_bn", 1), i32("stride_cm", n), i32("stride_cn", 1),
    ), {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, 4,
        (-(-m // bm) * -(-n // bn),))


def _conv2d():
    # NCHW fp16, 3×3, padding 1: im2col offsets with / and % and a 3-D grid; tune_configs.yaml
    # `conv2d_forward`'s first configuration.
    n, c, h, w, co, kh, kw = 2, 8, 10, 10, 16, 3, 3
    block_nhw, block_ci, block_co = 32, 32, 32
    return case("conv2d", "conv2d:conv2d_forward_kernel", (
        ptr("input_pointer", "fp16", n * c * h * w), ptr("weight_pointer", "fp16", co * c * kh * kw),
        ptr("output_pointer", "fp16", n * co * h * w, "zero"), ptr("bias_pointer", "fp16", co),
        i32("in_n", n), i32("input_height", h), i32("input_width", w), i32("out_c", co),
        i32("out_height", h), i32("out_width", w),
        i32("input_n_stride", c * h * w), i32("input_c_stride", h * w),
        i32("input_height_stride", w), i32("input_width_stride", 1),
        i32("weight_n_stride", c * kh * kw), i32("weight_c_stride", kh * kw),
        i32("weight_height_stride", kw), i32("weight_width_stride", 1),
        i32("output_n_stride", co * h * w), i32("output_c_stride", h * w),
        i32("output_height_stride", w), i32("output_width_stride", 1),
    ), {"weight_c": c, "weight_height": kh, "weight_width": kw, "stride_height": 1,
        "stride_width": 1, "padding_height": 1, "padding_width": 1, "dilation_height": 1,
        "dilation_width": 1, "groups": 1, "BLOCK_NI_HO_WO": block_nhw, "BLOCK_CI": block_ci,
        "BLOCK_CO": block_co}, 4, (-(-n * h * w // block_nhw), -(-co // block_co), 1), stages=2)


def _index_select():
    # Columns gathered through int64 indices, some out of range (masked off); FlagGems'
    # heuristics give BLOCK_M 4 and BLOCK_N 16 for these sizes; a 2-D grid.
    m, n, picked = 10, 100, 70
    return case("index_select", "index_select:index_select_kernel", (
        ptr("inp", "fp32", m * n), ptr("out", "fp32", m * picked, "zero"), i32("M", m),
        i32("N", n), Arg("index", "*i64", True, buf=("i64", picked, ("range", -3, n + 3))),
        i32("index_len", picked),
    ), {"BLOCK_M": 4, "BLOCK_N": 16}, 4, (-(-m // 4), -(-picked // 16)))


def _hadamard():
    # A 256-point fast Hadamard transform per row: eight butterfly stages of reshapes and
    # permutes (layout changes through shared memory), 2 warps as FlagGems launches it.
    rows, dim = 3, 256
    return case("hadamard_256", "hadamard_transform:_fht_kernel_256_1d_native", (
        ptr("X_ptr", "bf16", rows * dim), ptr("OUT_ptr", "bf16", rows * dim, "zero"),
        i32("stride_x_row", dim), i32("stride_out_row", dim),
    ), {"SCALE": 0.0625}, 2, (rows,), stages=1)


def _w8a8_fp8():
    # DeepSeek-style block-scaled fp8 GEMM: A (M×K) and B (N×K) e4m3 with one fp32 scale per
    # 128-wide block, bf16 out; FlagGems' default CUDA configuration (64×128×128, GROUP_SIZE_M
    # 32, 4 warps, 2 stages). fp8 bytes drawn below 0x70: finite, positive, at most 2^7·1.875.
    m, n, k, block = 100, 256, 256, 128
    e4m3 = ("range", 0, 0x70)
    return case("w8a8_fp8", "w8a8_block_fp8_matmul:w8a8_block_fp8_matmul_kernel", (
        ptr("A", "fp8e4nv", m * k, e4m3), ptr("B", "fp8e4nv", n * k, e4m3),
        ptr("C", "bf16", m * n, "zero"), ptr("As", "fp32", m * (k // block)),
        ptr("Bs", "fp32", (n // block) * (k // block)),
        i32("M", m), i32("N", n), i32("K", k), i32("group_n", block), i32("group_k", block),
        i32("stride_am", k), i32("stride_ak", 1), i32("stride_bk", 1), i32("stride_bn", k),
        i32("stride_cm", n), i32("stride_cn", 1), i32("stride_As_m", k // block),
        i32("stride_As_k", 1), i32("stride_Bs_k", 1), i32("stride_Bs_n", k // block),
    ), {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": block, "BLOCK_SIZE_K": block, "GROUP_SIZE_M": 32},
        4, (-(-m // 64) * (n // block),), stages=2, archs=("sm_90",))


def _flash_attention():
    # FlagGems' flash attention forward (flash_api.mha_fwd's last option, `flash_fwd`): causal,
    # dropout 0.1 through Philox, grouped-query (2 query heads per key head), head dim 64,
    # 100 positions (not a multiple of the blocks: IS_EVEN_MN false); the (128, 32, 4 warps)
    # configuration its autotuner keeps. The layout is flash-attention's (batch, seq, head, d).
    b, h, hk, s, d, bm, bn = 1, 2, 1, 100, 64, 128, 32
    rounded = -(-s // 128) * 128
    flag = lambda name: Arg(name, "i1", False, value=0)  # noqa: E731  (a Python False)
    scale = 0.125
    return case("flash_fwd", "flash_kernel:flash_fwd_kernel", (
        ptr("q_ptr", "fp16", b * s * h * d), ptr("k_ptr", "fp16", b * s * hk * d),
        ptr("v_ptr", "fp16", b * s * hk * d), ptr("o_ptr", "fp16", b * s * h * d, "zero"),
        ptr("softmax_lse_ptr", "fp32", b * h * rounded, "zero"),
        i32("q_row_stride", h * d), i32("k_row_stride", hk * d), i32("v_row_stride", hk * d),
        i32("q_head_stride", d), i32("k_head_stride", d), i32("v_head_stride", d),
        i32("o_row_stride", h * d), i32("o_head_stride", d),
        i32("q_batch_stride", s * h * d), i32("k_batch_stride", s * hk * d),
        i32("v_batch_stride", s * hk * d), i32("o_batch_stride", s * h * d),
        flag("is_cu_seqlens_q"), flag("is_cu_seqlens_k"), flag("is_seqused_k"),
        i32("seqlen_q", s), i32("seqlen_k", s), i32("seqlen_q_rounded", rounded),
        i32("seqlen_k_rounded", rounded),
        Arg("philox_args", "*i64", True, buf=("i64", 2, ("list", (0x5EED, 64)))),
    ), {"p_ptr": None, "cu_seqlens_q_ptr": None, "cu_seqlens_k_ptr": None,
        "seqused_k_ptr": None, "b": b, "bk": 0, "h": h, "hk": hk, "h_hk_ratio": h // hk,
        "d": d, "d_rounded": d, "is_softcap": False, "softcap": 0.0, "scale_softmax": scale,
        "scale_softmax_log2": scale * 1.4426950408889634, "is_dropout": True,
        "p_dropout": 0.9, "rp_dropout": 1 / 0.9, "p_dropout_in_uint8_t": 229,
        "return_softmax": False, "is_causal": True, "is_local": False, "window_size_left": -1,
        "window_size_right": 0, "seqlenq_ngroups_swapped": False, "is_paged": False,
        "is_alibi": False, "alibi_slopes_ptr": None, "alibi_slopes_batch_stride": 0,
        "total_q": 0, "page_table_ptr": None, "page_table_batch_stride": 0, "block_size": 0,
        "IS_EVEN_MN": False, "PRE_LOAD_V": False, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": d,
        "num_warps": 4, "num_stages": 2}, 4, (-(-s // bm), h * b), stages=2)


def _cummax():
    # A block scan of (value, index) pairs with FlagGems' combine (the larger value, the right
    # index on ties: `tl.associative_scan` with a tuple), and the block's max through
    # `tl.reduce` with the same combine; 3000 elements in blocks of 1024.
    n, block = 3000, 1024
    parts = -(-n // block)
    return case("cummax_part", "cummax:scan_part_max_kernel", (
        ptr("inp", "fp32", n), ptr("out", "fp32", n, "zero"),
        ptr("in_indices", "i64", n, "zero"), ptr("out_indices", "i64", n, "zero"),
        ptr("partial_max", "fp32", parts, "zero"), ptr("partial_max_indices", "i64", parts, "zero"),
        i32("n_elements", n),
    ), {"BLOCK_SIZE": block, "NEED_PARTIAL": True, "USE_OUT_INDICES": False}, 4, (parts,))


def _topk():
    # top-k's two stages as FlagGems' `topk` launches them for rows of 700: k rounds of argmax
    # over chunks of 256 (the winner masked to -max each round; the mask value is
    # torch.finfo(float32).min, a compile-time constant), then a bitonic argsort of the
    # chunks' candidates (`argsort`: reshapes and xor-swaps).
    batch, n, chunk, k = 3, 700, 256, 5
    chunks = -(-n // chunk)
    stage1 = case("topk_stage1", "topk:topk_stage1_kernel", (
        ptr("y_ptr", "fp32", batch * chunks * k, "zero"),
        ptr("index_ptr", "i64", batch * chunks * k, "zero"), ptr("x_ptr", "fp32", batch * n),
        i32("k", k),
    ), {"N": n, "CHUNK_SIZE": chunk, "DESCENDING": True}, 4, (batch, chunks))
    candidates = chunks * k
    stage2 = case("topk_stage2", "topk:topk_stage2_kernel", (
        ptr("y_ptr", "fp32", batch * k, "zero"), ptr("index_ptr", "i64", batch * k, "zero"),
        ptr("chunk_x", "fp32", batch * candidates),
        Arg("chunk_index", "*i64", True, buf=("i64", batch * candidates, ("range", 0, n))),
    ), {"sort_dim": 1, "k": k, "N": candidates, "BLOCK_SIZE": 16, "DESCENDING": True}, 4,
        (batch,))
    return stage1, stage2


def _isin():
    # `isin` by binary search (lower bound, log_n rounds, every lane its own path) in a
    # sorted table; FlagGems' BLOCK_M 512 and 8 warps up to 2^20 elements.
    m, table = 1000, tuple(range(0, 40, 2))
    return case("isin_search", "isin:isin_by_search_kernel", (
        Arg("in0_ravel_ptr", "*i32", True, buf=("i32", m, ("range", 0, 50))),
        Arg("in1_sorted_ptr", "*i32", True, buf=("i32", len(table), ("list", table))),
        ptr("out_ptr", "i1", m, "zero"), i32("M", m), i32("N", len(table)),
        i32("tiles_per_cta", 1),
    ), {"log_n": 5, "BLOCK_M": 512, "invert": False}, 8, (-(-m // 512),))


CASES = [
    _cumsum(), _dropout(), _argmax(), _embedding(), _scatter_add(), _nonzero(), _var_mean(),
    _mm(), _conv2d(), _index_select(), _hadamard(), _w8a8_fp8(), _flash_attention(),
    _cummax(), *_topk(), _isin(),
]

BY_NAME = {c.name: c for c in CASES}

"""Triton kernels of the warpsmith Triton suite (issue 12), written for this project.

Each kernel is what a Triton user typically writes for the job: a flash-attention forward pass,
tiled matrix products (fp16, int8, fp8; one through TMA tensor descriptors), a row-wise layer
norm, a row-wise softmax and a per-row fp8 quantisation. They are compiled without a GPU by
tests/triton/compile_suite.py; the configurations (tile shapes, warps, pipeline stages) are in
tests/triton/suite.py. Inner dimensions are contiguous, so no stride argument equals 1 (Triton
would otherwise specialise it away at launch time).
"""

import triton
import triton.language as tl

# log2(e): the softmax in attention works with exp2, so scores are scaled by it once.
LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def attention_forward(
    q_ptr, k_ptr, v_ptr, out_ptr, lse_ptr,
    scale,
    stride_q_batch, stride_q_head, stride_q_row,
    stride_k_batch, stride_k_head, stride_k_row,
    stride_v_batch, stride_v_head, stride_v_row,
    stride_o_batch, stride_o_head, stride_o_row,
    heads, seq_len,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
):
    """softmax(Q Kᵀ · scale) V for one BLOCK_M slice of queries of one (batch, head); also writes
    the log-sum-exp of each row (what a backward pass needs)."""
    row_block = tl.program_id(0)
    batch_head = tl.program_id(1)
    batch = batch_head // heads
    head = batch_head - batch * heads

    rows = row_block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    row_ok = rows < seq_len

    q_tile = q_ptr + batch * stride_q_batch + head * stride_q_head
    k_tile = k_ptr + batch * stride_k_batch + head * stride_k_head
    v_tile = v_ptr + batch * stride_v_batch + head * stride_v_head
    q = tl.load(q_tile + rows[:, None] * stride_q_row + dims[None, :], mask=row_ok[:, None], other=0.0)

    running_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    running_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    score_scale = scale * LOG2E

    # Causal: keys past the last query row of this block are never visible.
    if CAUSAL:
        end = tl.minimum((row_block + 1) * BLOCK_M, seq_len)
    else:
        end = seq_len
    for start in range(0, end, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < seq_len
        # K is read transposed: a [HEAD_DIM, BLOCK_N] tile.
        kt = tl.load(k_tile + cols[None, :] * stride_k_row + dims[:, None], mask=col_ok[None, :], other=0.0)
        scores = tl.dot(q, kt) * score_scale
        visible = col_ok[None, :]
        if CAUSAL:
            visible = visible & (cols[None, :] <= rows[:, None])
        scores = tl.where(visible, scores, float("-inf"))

        new_max = tl.maximum(running_max, tl.max(scores, axis=1))
        probs = tl.math.exp2(scores - new_max[:, None])
        rescale = tl.math.exp2(running_max - new_max)
        running_sum = running_sum * rescale + tl.sum(probs, axis=1)
        v = tl.load(v_tile + cols[:, None] * stride_v_row + dims[None, :], mask=col_ok[:, None], other=0.0)
        acc = acc * rescale[:, None] + tl.dot(probs.to(v.dtype), v)
        running_max = new_max

    acc = acc / running_sum[:, None]
    o_tile = out_ptr + batch * stride_o_batch + head * stride_o_head
    tl.store(o_tile + rows[:, None] * stride_o_row + dims[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=row_ok[:, None])
    # log-sum-exp in natural-log units.
    lse = (running_max + tl.math.log2(running_sum)) / LOG2E
    tl.store(lse_ptr + batch_head * seq_len + rows, lse, mask=row_ok)


@triton.jit
def tiled_matmul(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_a_row, stride_b_row, stride_c_row,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SWIZZLE: tl.constexpr,
    ACC_INT: tl.constexpr,
):
    """C = A·B with A [M, K], B [K, N], C [M, N], all row-major. Program ids are swizzled in
    bands of SWIZZLE tile rows so that neighbouring programs share B tiles in L2. ACC_INT
    accumulates in int32 (int8 inputs); otherwise in fp32."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    band = pid // (SWIZZLE * tiles_n)
    first_m = band * SWIZZLE
    band_height = tl.minimum(tiles_m - first_m, SWIZZLE)
    within = pid - band * SWIZZLE * tiles_n
    tile_m = first_m + within % band_height
    tile_n = within // band_height

    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    # Wrapped indices keep every load in bounds without a mask on M and N.
    rows_in = tl.max_contiguous(tl.multiple_of(rows % M, BLOCK_M), BLOCK_M)
    cols_in = tl.max_contiguous(tl.multiple_of(cols % N, BLOCK_N), BLOCK_N)
    a_at = a_ptr + rows_in[:, None] * stride_a_row + ks[None, :]
    b_at = b_ptr + ks[:, None] * stride_b_row + cols_in[None, :]

    if ACC_INT:
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    else:
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_ok = ks < K - k0
        a = tl.load(a_at, mask=k_ok[None, :], other=0.0)
        b = tl.load(b_at, mask=k_ok[:, None], other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=acc.dtype)
        a_at += BLOCK_K
        b_at += BLOCK_K * stride_b_row

    c_at = c_ptr + rows[:, None] * stride_c_row + cols[None, :]
    tl.store(c_at, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def tma_matmul(
    a_desc, b_desc, c_desc,
    M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    """C = A·B through host-side tensor descriptors (Hopper's TMA: `cp.async.bulk.tensor` into
    swizzled shared memory, `wgmma` from it, a TMA store of C), the style of Triton's persistent
    matmul tutorial and of vLLM's and PyTorch inductor's TMA templates. Tiles past the edges of
    A, B and C are the descriptors' business: loads fill zeros, stores clip."""
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_m = pid // tiles_n
    tile_n = pid % tiles_n
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([tile_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, tile_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.float16))

@triton.jit
def layer_norm_rows(
    x_ptr, y_ptr, weight_ptr, bias_ptr, mean_ptr, rstd_ptr,
    stride_row, width, eps,
    BLOCK: tl.constexpr,
):
    """y = (x − mean) / sqrt(var + eps) · weight + bias over each row (one program per row, the
    whole row in registers: BLOCK ≥ width). Writes each row's mean and 1/σ for the backward pass."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < width
    x = tl.load(x_ptr + row * stride_row + cols, mask=ok, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / width
    centred = tl.where(ok, x - mean, 0.0)
    var = tl.sum(centred * centred, axis=0) / width
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(weight_ptr + cols, mask=ok, other=0.0)
    b = tl.load(bias_ptr + cols, mask=ok, other=0.0)
    y = centred * rstd * w + b
    tl.store(y_ptr + row * stride_row + cols, y.to(y_ptr.dtype.element_ty), mask=ok)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def softmax_rows(
    x_ptr, y_ptr,
    stride_x_row, stride_y_row, rows, width,
    BLOCK: tl.constexpr, STAGES: tl.constexpr,
):
    """Numerically stable softmax over each row of x. Persistent: each program walks the rows
    pid, pid + grid, …; the loop is software-pipelined STAGES deep."""
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < width
    for row in tl.range(first, rows, step, num_stages=STAGES):
        x = tl.load(x_ptr + row * stride_x_row + cols, mask=ok, other=float("-inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        y = e / tl.sum(e, axis=0)
        tl.store(y_ptr + row * stride_y_row + cols, y.to(y_ptr.dtype.element_ty), mask=ok)


@triton.jit
def fp8_quant_rows(x_ptr, y_ptr, scale_ptr, width, stride_x, stride_y, BLOCK: tl.constexpr):
    """Per-row dynamic fp8 (e4m3) quantisation, the kind of kernel vLLM and SGLang run before an
    fp8 matmul: each row is scaled so that its largest magnitude maps to e4m3's 448, converted
    with saturation, and its scale stored."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < width
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = tl.maximum(amax, 1e-12) / 448.0
    y = (x / scale).to(tl.float8e4nv)
    tl.store(y_ptr + row * stride_y + cols, y, mask=mask)
    tl.store(scale_ptr + row, scale)

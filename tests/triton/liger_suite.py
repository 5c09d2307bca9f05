"""Foreign Triton kernels: Liger-Kernel's (LinkedIn's Triton kernels for LLM training, PyPI
`liger-kernel`), as its host wrappers launch them, for the checks tests/triton/suite.py's own
kernels get (issue 12: "hold on code you did not write").

Each case names a `@triton.jit` function of an installed `liger_kernel.ops` module, its runtime
arguments in order — with the value a launch gives each: a buffer (element type, length,
initial contents) or a scalar — its compile-time constants, Triton's launch options and the grid,
chosen the way Liger's wrapper chooses them (`calculate_settings`: the next power of two of the
row width, 4/8/16/32 warps from 2 K/8 K/32 K columns on). Rows and widths are small so that the
emulator runs a launch in seconds, and widths are not powers of two, so masks matter.

Liger's op modules import torch for their host code; the kernels do not use it.
`tests/triton/stand_in/torch` is an empty stand-in that `compile_suite.py --corpus liger` puts on
the path (with `liger_kernel` from setup.sh's `.tools/liger`), so no torch (2 GB with its CUDA
libraries) is installed.
"""

from __future__ import annotations

import triton.language as tl
from foreign import Arg, ForeignCase, desc, f32, i32, ptr

# Rows of a launch and row widths: not powers of two (masked tails).
ROWS = 3
HIDDEN = 3000  # BLOCK_SIZE 4096, 8 warps
VOCAB = 9000  # BLOCK_SIZE 16384, 16 warps (cross entropy: Liger gives it 32 warps)


DIRECTION = {"fwd": "forward", "bwd": "backward"}


def _rms_norm_forward():
    n = HIDDEN
    return ForeignCase("liger_rms_norm_fwd", "rms_norm:_rms_norm_forward_kernel", (
        ptr("Y_ptr", "bf16", ROWS * n, "zero"), i32("Y_row_stride", n),
        ptr("X_ptr", "bf16", ROWS * n), i32("X_row_stride", n),
        ptr("W_ptr", "bf16", n), i32("W_row_stride", 1),
        ptr("RSTD_ptr", "fp32", ROWS, "zero"), i32("RSTD_row_stride", 1),
        i32("n_cols", n), f32("eps", 1e-6), f32("offset", 0.0),
    ), {"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 4096}, 8, (ROWS,))


def _rms_norm_backward():
    n, rows_per_program = HIDDEN, 2
    programs = -(-ROWS // rows_per_program)
    return ForeignCase("liger_rms_norm_bwd", "rms_norm:_rms_norm_backward_kernel", (
        ptr("dY_ptr", "bf16", ROWS * n), i32("dY_row_stride", n),
        ptr("dX_ptr", "bf16", ROWS * n, "zero"), i32("dX_row_stride", n),
        ptr("X_ptr", "bf16", ROWS * n), i32("X_row_stride", n),
        ptr("W_ptr", "bf16", n), i32("W_row_stride", 1),
        ptr("RSTD_ptr", "fp32", ROWS), i32("RSTD_row_stride", 1),
        ptr("dW_ptr", "fp32", programs * n, "zero"), i32("dW_row_stride", n),
        i32("n_rows", ROWS), i32("n_cols", n), f32("offset", 0.0),
        i32("rows_per_program", rows_per_program),
    ), {"X_dtype": tl.bfloat16, "casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 4096,
        "COMPUTE_DW": True}, 8, (programs,))


def _layer_norm_forward():
    n = HIDDEN
    return ForeignCase("liger_layer_norm_fwd", "layer_norm:_layer_norm_forward_kernel", (
        ptr("Y_ptr", "fp16", ROWS * n, "zero"), i32("Y_row_stride", n),
        ptr("X_ptr", "fp16", ROWS * n), i32("X_row_stride", n),
        ptr("W_ptr", "fp16", n), i32("W_row_stride", 1),
        ptr("B_ptr", "fp16", n), i32("B_row_stride", 1),
        ptr("Mean_ptr", "fp32", ROWS, "zero"), i32("Mean_row_stride", 1),
        ptr("RSTD_ptr", "fp32", ROWS, "zero"), i32("RSTD_row_stride", 1),
        i32("n_cols", n), f32("eps", 1e-5),
    ), {"BLOCK_SIZE": 4096}, 8, (ROWS,))


def _gated(kernel, ref, ty, names, direction, scalars):
    """A gated unit (SwiGLU, GeGLU) over one row: forward reads the two halves and writes the
    product; backward reads the upstream gradient and both halves and writes in place."""
    n = HIDDEN
    inits = ("random", "random", "zero") if direction == "fwd" else ("random",) * 3
    return ForeignCase(f"liger_{kernel}_{direction}", f"{ref}_{DIRECTION[direction]}_kernel",
                     tuple(ptr(name, ty, ROWS * n, init) for name, init in zip(names, inits))
                     + (i32("stride", n),) + scalars,
                     {"n_cols": n, "BLOCK_SIZE": 4096}, 8, (ROWS,))


def _swiglu(direction):
    names = ("a_ptr", "b_ptr", "c_ptr") if direction == "fwd" else ("dc_ptr", "a_ptr", "b_ptr")
    return _gated("swiglu", "swiglu:_swiglu", "bf16", names, direction,
                  (f32("gate_multiplier", 1.0),))


def _geglu(direction):
    names = ("a", "b", "c") if direction == "fwd" else ("dc", "a", "b")
    return _gated("geglu", "geglu:_geglu_tanh", "fp16", names, direction, ())


def _cross_entropy():
    v = VOCAB
    return ForeignCase("liger_cross_entropy", "cross_entropy:liger_cross_entropy_kernel", (
        ptr("X_ptr", "bf16", ROWS * v), i32("X_stride", v),
        Arg("Y_ptr", "*i64", True, buf=("i64", ROWS, ("range", 0, 9000))), i32("Y_stride", 1),
        ptr("weight_ptr", "fp32", v), ptr("loss_ptr", "fp32", ROWS, "zero"),
        ptr("z_loss_ptr", "fp32", ROWS, "zero"), i32("loss_stride", 1),
        ptr("token_accuracy_ptr", "fp32", ROWS, "zero"), i32("token_accuracy_stride", 0),
        Arg("predicted_tokens_ptr", "*i64", True, buf=("i64", ROWS, "zero")),
        i32("predicted_tokens_stride", 0),
        i32("n_cols", v), i32("n_non_ignore", ROWS), f32("sum_non_ignore_weight", 3.0),
        f32("weight_sum", 1.0), i32("ignore_index", -100),
    ), {"lse_square_scale": 0.0, "label_smoothing": 0.1, "reduction": "mean", "softcap": None,
        "RETURN_Z_LOSS": False, "RETURN_TOKEN_ACCURACY": False,
        "RETURN_PREDICTED_TOKENS": False, "BLOCK_SIZE": 16384, "HAS_WEIGHT": False,
        "HAS_SOFTCAPPING": False, "HAS_GRADIENTS": True}, 32, (ROWS,))


def _rope():
    # Llama-style: 8 query heads, 2 key heads of 128; batch 1, 5 positions.
    sl, n_qh, n_kh, hd = 5, 8, 2, 128
    return ForeignCase("liger_rope", "rope:_triton_rope", (
        ptr("q_ptr", "bf16", sl * n_qh * hd), i32("q_row_stride", n_qh * hd),
        ptr("k_ptr", "bf16", sl * n_kh * hd), i32("k_row_stride", n_kh * hd),
        ptr("cos", "bf16", sl * hd), i32("cos_row_stride", hd),
        ptr("sin", "bf16", sl * hd), i32("sin_row_stride", hd),
        i32("sl", sl),
    ), {"bs": 1, "cos_bs": 1, "n_qh": n_qh, "n_kh": n_kh, "hd": hd, "pad_n_qh": n_qh,
        "pad_n_kh": n_kh, "pad_hd": hd, "pad_rd": hd // 2, "rd": hd // 2, "BLOCK_SIZE": 128,
        "BACKWARD_PASS": False}, 4, (sl,))


def _softmax():
    n = HIDDEN
    return ForeignCase("liger_softmax_fwd", "softmax:_softmax_single_block_forward_kernel", (
        ptr("Y_ptr", "fp16", ROWS * n, "zero"), i32("Y_row_stride", n),
        ptr("X_ptr", "fp16", ROWS * n), i32("X_row_stride", n), i32("n_cols", n),
    ), {"BLOCK_SIZE": 4096}, 8, (ROWS,))


def _group_norm():
    # 2 samples, 4 groups of 6 channels of 100 values each (the kernel's hidden size is a
    # group's: 600).
    batch, groups, channels, hidden = 2, 4, 6, 100
    size = batch * groups * channels * hidden
    return ForeignCase("liger_group_norm_fwd", "group_norm:_group_norm_forward_kernel", (
        ptr("Y_ptr", "fp32", size, "zero"), i32("Y_row_stride", groups * channels * hidden),
        i32("Y_col_stride", channels * hidden),
        ptr("X_ptr", "fp32", size), i32("X_row_stride", groups * channels * hidden),
        i32("X_col_stride", channels * hidden),
        ptr("Mean_ptr", "fp32", batch * groups, "zero"), i32("Mean_row_stride", groups),
        i32("Mean_col_stride", 1),
        ptr("RSTD_ptr", "fp32", batch * groups, "zero"), i32("RSTD_row_stride", groups),
        i32("RSTD_col_stride", 1),
        ptr("W_ptr", "fp32", groups * channels), ptr("B_ptr", "fp32", groups * channels),
        i32("hidden_size", channels * hidden), i32("channels_per_group", channels),
        f32("eps", 1e-6),
    ), {"BLOCK_SIZE": 1024}, 4, (batch, groups))


def _kl_div():
    v = VOCAB
    return ForeignCase("liger_kl_div_fwd", "kl_div:_kldiv_kernel_forward", (
        ptr("y_ptr", "fp32", ROWS * v), i32("y_stride", v),
        ptr("gt_ptr", "fp32", ROWS * v), i32("gt_stride", v),
        ptr("loss_ptr", "fp32", ROWS, "zero"), i32("loss_stride", 1),
        i32("n_cols", v), f32("eps", 1e-10),
    ), {"BLOCK_SIZE": 16384, "reduction": 1, "log_target": False}, 16, (ROWS,))


def _jsd():
    v = VOCAB
    return ForeignCase("liger_jsd", "jsd:_jsd_kernel", (
        ptr("X_ptr", "fp32", ROWS * v), i32("X_stride", v),
        ptr("Y_ptr", "fp32", ROWS * v), i32("Y_stride", v),
        ptr("loss_ptr", "fp32", ROWS * v, "zero"), i32("loss_stride", v),
        ptr("dX_ptr", "fp32", ROWS * v, "zero"), i32("dX_stride", v),
        Arg("label_ptr", "*i64", True, buf=("i64", ROWS, "zero")),
        i32("n_non_ignore", ROWS), i32("n_cols", v),
    ), {"beta": 0.5, "ignore_index": -100, "BLOCK_SIZE": 16384, "HAS_LABEL": False}, 16,
        (ROWS,))


def _neighborhood_attention_qk():
    # 1 batch, 2 heads, 100 positions, head dim 64: tl.dot on tensor cores.
    b, h, s, d = 1, 2, 100, 64
    return ForeignCase("liger_na_qk", "fused_neighborhood_attention:"
                     "_fused_neighborhood_attention_qk_kernel", (
        ptr("Q_ptr", "fp16", b * h * s * d), ptr("K_ptr", "fp16", b * h * s * d),
        ptr("QK_ptr", "fp16", b * h * s * s, "zero"), ptr("mask_ptr", "fp32", s * s),
        i32("q_batch_stride", h * s * d), i32("q_head_stride", s * d), i32("q_seq_stride", d),
        i32("q_dim_stride", 1),
        i32("k_batch_stride", h * s * d), i32("k_head_stride", s * d), i32("k_seq_stride", d),
        i32("k_dim_stride", 1),
        i32("qk_batch_stride", h * s * s), i32("qk_head_stride", s * s),
        i32("qk_seq_stride", s), i32("qk_seq2_stride", 1),
    ), {"batch_size": b, "num_heads": h, "seq_len": s, "head_dim": d, "scale": 0.125,
        "kernel_size": 7, "dilation": 1, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64,
        "BLOCK_SIZE_K": 64, "num_stages": 2, "num_warps": 4}, 4, (b * h, 2, 2), num_stages=2)


def _neighborhood_attention_av():
    # The same shapes: attention weights (fp16, as Liger's wrapper keeps them) times V.
    b, h, s, d = 1, 2, 100, 64
    return ForeignCase("liger_na_av", "fused_neighborhood_attention:"
                     "_fused_neighborhood_attention_av_kernel", (
        ptr("Attn_ptr", "fp16", b * h * s * s), ptr("V_ptr", "fp16", b * h * s * d),
        ptr("Out_ptr", "fp16", b * h * s * d, "zero"),
        i32("attn_batch_stride", h * s * s), i32("attn_head_stride", s * s),
        i32("attn_seq_stride", s), i32("attn_seq2_stride", 1),
        i32("v_batch_stride", h * s * d), i32("v_head_stride", s * d), i32("v_seq_stride", d),
        i32("v_dim_stride", 1),
        i32("out_batch_stride", h * s * d), i32("out_head_stride", s * d),
        i32("out_seq_stride", d), i32("out_dim_stride", 1),
    ), {"batch_size": b, "num_heads": h, "seq_len": s, "head_dim": d, "BLOCK_SIZE_M": 64,
        "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "num_stages": 2, "num_warps": 4}, 4,
        (b * h, 2, 1), num_stages=2)


def _layer_norm_backward():
    # One program per SM in Liger; two programs of two rows each here.
    n, programs, rows_per_program = HIDDEN, 2, 2
    return ForeignCase("liger_layer_norm_bwd", "layer_norm:_layer_norm_backward_kernel", (
        ptr("X_ptr", "fp16", ROWS * n), i32("stride_x", n), ptr("W_ptr", "fp16", n),
        ptr("Mean_ptr", "fp32", ROWS), i32("stride_mean", 1),
        ptr("RSTD_ptr", "fp32", ROWS), i32("stride_rstd", 1),
        ptr("DX_ptr", "fp16", ROWS * n, "zero"), i32("stride_dx", n),
        ptr("DW_ptr", "fp32", programs * n, "zero"), i32("stride_dw", n),
        ptr("DB_ptr", "fp32", programs * n, "zero"), i32("stride_db", n),
        ptr("DY_ptr", "fp16", ROWS * n), i32("stride_dy", n),
        i32("n_rows", ROWS), i32("n_cols", n),
    ), {"rows_per_program": rows_per_program, "BLOCK_SIZE": 4096, "COMPUTE_DW": True,
        "COMPUTE_DB": True}, 8, (programs,))


def _block_rms_norm_forward():
    # Liger's choice for many short rows (BLOCK_SIZE <= 256): 16 rows of 100 per program.
    rows, n = 20, 100
    return ForeignCase("liger_block_rms_norm_fwd", "rms_norm:_block_rms_norm_forward_kernel", (
        ptr("Y_ptr", "bf16", rows * n, "zero"), i32("Y_row_stride", n),
        ptr("X_ptr", "bf16", rows * n), i32("X_row_stride", n),
        ptr("W_ptr", "bf16", n), i32("W_row_stride", 1),
        ptr("RSTD_ptr", "fp32", rows, "zero"), i32("RSTD_row_stride", 1),
        i32("n_rows", rows), i32("n_cols", n), f32("eps", 1e-6), f32("offset", 0.0),
    ), {"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 128, "BLOCK_ROW": 16}, 4,
        (2,))


def _fused_add_rms_norm():
    n = HIDDEN
    return ForeignCase("liger_fused_add_rms_norm_fwd",
                     "fused_add_rms_norm:_fused_add_rms_norm_forward_kernel", (
        ptr("Y_ptr", "bf16", ROWS * n, "zero"), i32("Y_row_stride", n),
        ptr("S_ptr", "bf16", ROWS * n, "zero"), i32("S_row_stride", n),
        ptr("X_ptr", "bf16", ROWS * n), i32("X_row_stride", n),
        ptr("R_ptr", "bf16", ROWS * n), i32("R_row_stride", n),
        ptr("W_ptr", "bf16", n), i32("W_row_stride", 1),
        ptr("RSTD_ptr", "fp32", ROWS, "zero"), i32("RSTD_row_stride", 1),
        i32("n_cols", n), f32("eps", 1e-6), f32("offset", 0.0),
    ), {"casting_mode": 0, "BLOCK_SIZE": 4096}, 8, (ROWS,))


def _swiglu_mlp_forward():
    """The fused SwiGLU MLP's forward (`mlp.py`: gate and up projections and the gating in one
    kernel, every tile moved by TMA through host-side descriptors, 3-D for the activations);
    64×128×64 tiles, 4 warps, 3 stages, one of its autotuning configurations. S = 80: a partial
    row tile, so loads fill zeros and stores clip."""
    b, s, d, h = 1, 80, 144, 256
    bm, bn, bk = 64, 128, 64
    outs = [desc(n, "bf16", (b, s, h), (1, bm, bn), "zero") for n in ("desc_A", "desc_G", "desc_U")]
    return ForeignCase("liger_swiglu_mlp_fwd", "mlp:_swiglu_kernel_forward", (
        desc("desc_input", "bf16", (b, s, d), (1, bm, bk)),
        desc("desc_Wg", "bf16", (h, d), (bn, bk)), desc("desc_Wu", "bf16", (h, d), (bn, bk)),
        *outs, i32("S", s), i32("dim", d), i32("hidden_dim", h), i32("bucket_M", 128),
    ), {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_SIZE_M": 8, "gate_multiplier": 1.0},
        4, (-(-s // bm) * (h // bn), b), num_stages=3, archs=("sm_90",))


def _selective_log_softmax():
    # GRPO: 2 sequences of 3 tokens over a 1000-word vocabulary.
    batch, length, vocab = 2, 3, 1000
    return ForeignCase("liger_selective_log_softmax", "grpo_loss:_selective_log_softmax_kernel", (
        ptr("LOGITS", "bf16", batch * (length + 1) * vocab),
        Arg("INPUT_IDS", "*i64", True, buf=("i64", batch * length, ("range", 0, 1000))),
        ptr("LOG_P", "fp32", batch * length, "zero"),
        Arg("MASK", "*i32", True, buf=("i32", batch * length, "ones")),
        i32("stride_input_ids_b", length), i32("stride_input_ids_l", 1),
        i32("stride_mask_b", length), i32("stride_mask_l", 1),
    ), {"TEMPERATURE": 0.9, "L": length, "N": vocab, "BLOCK_N": 1024}, 4, (batch, length))


CASES = [
    _rms_norm_forward(), _rms_norm_backward(), _layer_norm_forward(), _swiglu("fwd"),
    _swiglu("bwd"), _geglu("fwd"), _geglu("bwd"), _cross_entropy(), _rope(), _softmax(),
    _group_norm(), _kl_div(), _jsd(), _neighborhood_attention_qk(), _fused_add_rms_norm(),
    _selective_log_softmax(), _neighborhood_attention_av(), _layer_norm_backward(),
    _block_rms_norm_forward(), _swiglu_mlp_forward(),
]

BY_NAME = {c.name: c for c in CASES}

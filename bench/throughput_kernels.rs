//! The four hand-written PTX kernels of the emulator throughput benchmarks (`emu_throughput`,
//! PTX emulator; `sass_emu_throughput`, SASS emulator on ptxas's cubins of the same PTX), in the
//! style LLVM emits: an FMA-heavy loop, an integer hash loop, a shared-memory tiled kernel with
//! barriers, and a divergent loop with shuffles.

pub const FMA_LOOP: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry fma_loop(.param .u64 p_out, .param .u32 p_iters)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<4>;
	ld.param.b64 	%rd1, [p_out];
	ld.param.b32 	%r1, [p_iters];
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mad.lo.s32 	%r5, %r3, %r4, %r2;
	cvt.rn.f32.s32 	%r6, %r5;
	mov.b32 	%r7, 0f3F800000;
	mov.b32 	%r8, 0;
$L_loop:
	fma.rn.f32 	%r7, %r7, %r6, 0f3F000000;
	mul.f32 	%r7, %r7, 0f3DCCCCCD;
	add.f32 	%r6, %r6, 0f3F800000;
	add.s32 	%r8, %r8, 1;
	setp.lt.s32 	%p1, %r8, %r1;
	@%p1 bra 	$L_loop;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r5, 4;
	add.s64 	%rd2, %rd2, %rd3;
	st.global.b32 	[%rd2], %r7;
	ret;
}
"#;

pub const HASH_LOOP: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry hash_loop(.param .u64 p_out, .param .u32 p_iters)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<12>;
	ld.param.b64 	%rd1, [p_out];
	ld.param.b32 	%r1, [p_iters];
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mad.lo.s32 	%r5, %r3, %r4, %r2;
	cvt.u64.u32 	%rd2, %r5;
	mov.b32 	%r6, 0;
$L_loop:
	add.s64 	%rd2, %rd2, -7046029254386353131;
	shr.u64 	%rd3, %rd2, 30;
	xor.b64 	%rd4, %rd3, %rd2;
	mul.lo.s64 	%rd5, %rd4, -4658895280553007687;
	shr.u64 	%rd6, %rd5, 27;
	xor.b64 	%rd7, %rd6, %rd5;
	mul.lo.s64 	%rd8, %rd7, -7723592293110705685;
	shr.u64 	%rd9, %rd8, 31;
	xor.b64 	%rd2, %rd9, %rd8;
	add.s32 	%r6, %r6, 1;
	setp.lt.s32 	%p1, %r6, %r1;
	@%p1 bra 	$L_loop;
	cvta.to.global.u64 	%rd10, %rd1;
	mul.wide.s32 	%rd11, %r5, 8;
	add.s64 	%rd10, %rd10, %rd11;
	st.global.b64 	[%rd10], %rd2;
	ret;
}
"#;

pub const SMEM_TILE: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry smem_tile(.param .u64 p_in, .param .u64 p_out, .param .u32 p_iters)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<10>;
	.shared .align 4 .b8 tile[1024];
	ld.param.b64 	%rd1, [p_in];
	ld.param.b64 	%rd2, [p_out];
	ld.param.b32 	%r1, [p_iters];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	shl.b32 	%r4, %r3, 8;
	add.s32 	%r5, %r4, %r2;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.b32 	%r6, [%rd4];
	shl.b32 	%r7, %r2, 2;
	mov.u32 	%r8, tile;
	add.s32 	%r9, %r8, %r7;
	xor.b32 	%r10, %r2, 1;
	shl.b32 	%r11, %r10, 2;
	add.s32 	%r12, %r8, %r11;
	mov.b32 	%r13, 0;
$L_loop:
	st.shared.b32 	[%r9], %r6;
	bar.sync 	0;
	ld.shared.b32 	%r14, [%r12];
	add.f32 	%r6, %r6, %r14;
	mul.f32 	%r6, %r6, 0f3F000000;
	bar.sync 	0;
	add.s32 	%r13, %r13, 1;
	setp.lt.s32 	%p1, %r13, %r1;
	@%p1 bra 	$L_loop;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.b32 	[%rd5], %r6;
	ret;
}
"#;

pub const SHFL_DIVERGE: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry shfl_diverge(.param .u64 p_out, .param .u32 p_iters)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<16>;
	.reg .b64 	%rd<4>;
	ld.param.b64 	%rd1, [p_out];
	ld.param.b32 	%r1, [p_iters];
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mad.lo.s32 	%r5, %r3, %r4, %r2;
	and.b32 	%r6, %r2, 31;
	mov.b32 	%r7, 0;
	mov.b32 	%r8, 0;
$L_outer:
	and.b32 	%r9, %r8, 3;
	setp.lt.u32 	%p1, %r6, 16;
	@%p1 bra 	$L_else;
	add.s32 	%r7, %r7, %r9;
	xor.b32 	%r7, %r7, %r6;
	bra.uni 	$L_join;
$L_else:
	sub.s32 	%r7, %r7, %r9;
	shl.b32 	%r10, %r7, 1;
	add.s32 	%r7, %r10, %r6;
$L_join:
	shfl.sync.bfly.b32 	%r11, %r7, 1, 31, -1;
	add.s32 	%r7, %r7, %r11;
	shfl.sync.down.b32 	%r12, %r7, 2, 31, -1;
	xor.b32 	%r7, %r7, %r12;
	add.s32 	%r8, %r8, 1;
	setp.lt.s32 	%p2, %r8, %r1;
	@%p2 bra 	$L_outer;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r5, 4;
	add.s64 	%rd2, %rd2, %rd3;
	st.global.b32 	[%rd2], %r7;
	ret;
}
"#;

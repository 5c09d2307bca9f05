; print<affine-divergence> on hand-written NVPTX IR: one line per argument and instruction.
; REQUIRES: plugin, opt
; RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' %s -disable-output 2>&1 | FileCheck %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: Affine divergence for function 'classes' (kernel, block shape 256x1x1):
; CHECK-NOT: note:
; CHECK-NEXT: uniform scope=block: ptr %a
; CHECK-NEXT: uniform scope=block: i32 %n
; CHECK: affine coef=1 scope=warp: %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: uniform scope=block: %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK-NEXT: constant value=256: %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK-NEXT: uniform scope=block: %base = mul i32 %ctaid, %ntid
; CHECK-NEXT: affine coef=1 scope=warp: %i = add i32 %base, %tid
; CHECK-NEXT: constant-affine coef=1 base=0: %lane = and i32 %tid, 31
; CHECK-NEXT: uniform scope=warp: %warp = lshr i32 %tid, 5
; CHECK-NEXT: affine coef=1 scope=warp: %i64 = sext i32 %i to i64
; CHECK-NEXT: affine coef=4 scope=warp: %p = getelementptr inbounds float, ptr %a, i64 %i64
; CHECK-NEXT: divergent: %x = load float, ptr %p, align 4
; A generic load may read local memory: divergent, as in LLVM. Through addrspace(1): one
; warp-wide load of one address.
; CHECK-NEXT: divergent: %y0 = load float, ptr %a, align 4
; CHECK-NEXT: uniform scope=block: %ag = addrspacecast ptr %a to ptr addrspace(1)
; CHECK-NEXT: uniform scope=warp: %y = load float, ptr addrspace(1) %ag, align 4
; CHECK-NEXT: divergent: %c = icmp slt i32 %i, %n
; CHECK-NEXT: divergent branch: br i1 %c, label %then, label %exit
; CHECK: block %exit:
; CHECK-NEXT: divergent: %r = phi float [ %x, %then ], [ 0.000000e+00, %entry ]
; CHECK-NEXT: void: store float %r, ptr %p, align 4
; CHECK-NEXT: void: ret void
define ptx_kernel void @classes(ptr %a, i32 %n) "nvvm.reqntid"="256,1,1" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %lane = and i32 %tid, 31
  %warp = lshr i32 %tid, 5
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  %x = load float, ptr %p, align 4
  %y0 = load float, ptr %a, align 4
  %ag = addrspacecast ptr %a to ptr addrspace(1)
  %y = load float, ptr addrspace(1) %ag, align 4
  %c = icmp slt i32 %i, %n
  br i1 %c, label %then, label %exit
then:
  br label %exit
exit:
  %r = phi float [ %x, %then ], [ 0.0, %entry ]
  store float %r, ptr %p, align 4
  ret void
}

; A device function: its arguments are divergent (no interprocedural analysis, as in LLVM).
; CHECK-LABEL: Affine divergence for function 'device' (device function, block shape unknown):
; CHECK-NEXT: divergent: i32 %x
; CHECK-NEXT: block %entry:
; CHECK-NEXT: constant-affine coef=1 base=0: %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
; CHECK-NEXT: divergent: %s = add i32 %x, %lane
; CHECK-NEXT: uniform scope=warp: %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 true)
; CHECK-NEXT: uniform scope=warp: %f = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %s, i32 0, i32 31)
; CHECK-NEXT: divergent: %g = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s, i32 1, i32 31)
; CHECK-NEXT: divergent: %old = atomicrmw add ptr addrspace(1) null, i32 1 monotonic, align 4
; CHECK-NEXT: void: ret i32 %s
define i32 @device(i32 %x) {
entry:
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %s = add i32 %x, %lane
  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 true)
  %f = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %s, i32 0, i32 31)
  %g = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s, i32 1, i32 31)
  %old = atomicrmw add ptr addrspace(1) null, i32 1 monotonic
  ret i32 %s
}

; for (i = 0; i < tid; i++) — i is uniform inside, its use after the divergent exit is not.
; CHECK-LABEL: Affine divergence for function 'loop'
; CHECK: uniform scope=block: %i = phi i32 [ 0, %entry ], [ %next, %loop ]
; CHECK-NEXT: uniform scope=block: %next = add i32 %i, 1
; CHECK-NEXT: divergent: %c = icmp ult i32 %next, %tid
; CHECK-NEXT: divergent branch: br i1 %c, label %loop, label %exit
; CHECK: divergent: %use = add i32 %next, 0
define ptx_kernel void @loop(ptr %out) "nvvm.reqntid"="64" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add i32 %i, 1
  %c = icmp ult i32 %next, %tid
  br i1 %c, label %loop, label %exit
exit:
  %use = add i32 %next, 0
  store i32 %use, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)

; Sign extension keeps an affine value affine only when no lane can wrap: unknown here (no nsw,
; ntid unknown), so divergent; with nsw on the add, or -affine-divergence-assume-no-overflow, affine.
; RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -affine-divergence-assume-1d %s -disable-output 2>&1 | FileCheck %s --check-prefix=WRAP
; RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -affine-divergence-assume-1d -affine-divergence-assume-no-overflow %s -disable-output 2>&1 | FileCheck %s --check-prefix=NOWRAP
; WRAP-LABEL: Affine divergence for function 'wrap'
; WRAP: affine coef=1 scope=warp: %i = add i32 %base, %tid
; WRAP-NEXT: divergent: %w = sext i32 %i to i64
; WRAP-NEXT: affine coef=1 scope=warp: %j = add nsw i32 %base, %tid
; WRAP-NEXT: affine coef=1 scope=warp: %x = sext i32 %j to i64
; NOWRAP-LABEL: Affine divergence for function 'wrap'
; NOWRAP: affine coef=1 scope=warp: %w = sext i32 %i to i64
define ptx_kernel void @wrap(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %w = sext i32 %i to i64
  %j = add nsw i32 %base, %tid
  %x = sext i32 %j to i64
  store i64 %w, ptr %out
  store i64 %x, ptr %out
  ret void
}

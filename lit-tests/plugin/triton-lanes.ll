; The lane and warp arithmetic Triton emits, on LLVM IR (the start of Triton 3.6's layer norm,
; "nvvm.reqntid"="256"): with the block shape known, %tid.x is at most 255, so `and %tid, 255`
; and `and (shl %tid, 3), 2040` keep every bit the value can have and the `or disjoint` of 2048
; is an addition — all affine in the lane. `%tid & 127` keeps the lane part of any aligned
; value. Without the shape none of it holds.
; REQUIRES: plugin, opt
; RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' %s -disable-output 2>&1 | FileCheck %s
; RUN: sed 's/"nvvm.reqntid"="256"/nounwind/' %s | %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -disable-output 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; RUN: sed 's/"nvvm.reqntid"="256"/nounwind/' %s | %opt -load-pass-plugin=%plugin -affine-divergence-assume-1d -passes='print<affine-divergence>' -disable-output 2>&1 | FileCheck %s --check-prefix=ONED
; Triton's own `llir` has no target triple: nothing is analysed, and the note says how to give it.
; RUN: sed '/^target triple/d' %s | %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -disable-output 2>&1 | FileCheck %s --check-prefix=NOTRIPLE
; RUN: sed '/^target triple/d' %s | %opt -mtriple=nvptx64-nvidia-cuda -load-pass-plugin=%plugin -passes='print<affine-divergence>' -disable-output 2>&1 | FileCheck %s
; NOTRIPLE: Affine divergence for function 'layer_norm_rows': not an NVPTX module (triple ''); nothing analysed (a module without a triple, such as Triton's `llir`, can be analysed with opt -mtriple=nvptx64-nvidia-cuda)

target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: Affine divergence for function 'layer_norm_rows' (kernel, block shape 256x1x1):
; CHECK: affine coef=1 scope=warp: %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: affine coef=1 scope=warp: %t = and i32 %tid, 255
; CHECK-NEXT: constant-affine coef=1 base=0: %lane = and i32 %tid, 31
; CHECK-NEXT: uniform scope=warp: %warp = lshr i32 %t, 5
; CHECK-NEXT: affine coef=8 scope=warp: %t8 = shl nuw nsw i32 %tid, 3
; CHECK-NEXT: affine coef=8 scope=warp: %col = and i32 %t8, 2040
; CHECK-NEXT: affine coef=8 scope=warp: %col2 = or disjoint i32 %col, 2048
; CHECK-NEXT: affine coef=8 scope=warp: %colx = xor i32 %col, 2048
; CHECK-NEXT: affine coef=1 scope=warp: %half = and i32 %tid, 127
; CHECK-NEXT: affine coef=8 scope=warp: %off = zext nneg i32 %col2 to i64
; CHECK-NEXT: affine coef=16 scope=warp: %p = getelementptr half, ptr addrspace(1) %x, i64 %off
; The mask 7 keeps none of 8·tid's bits.
; CHECK-NEXT: constant value=0: %none = and i32 %t8, 7

; UNKNOWN: Affine divergence for function 'layer_norm_rows' (kernel, block shape unknown):
; UNKNOWN: divergent: %t = and i32 %tid, 255
; UNKNOWN: divergent: %col2 = or disjoint i32 %col, 2048

; With 1-D blocks assumed %tid = 32·warp + lane has no bound, but every mask here keeps the
; bits of the lane part (and masks the warp part): affine with a warp-uniform base, and `& 2040`
; bounds its result, so the `or` of 2048 is still an addition. 8·tid & 7 is 0 on its low zeros.
; ONED: affine coef=1 scope=warp: %t = and i32 %tid, 255
; ONED: affine coef=8 scope=warp: %col = and i32 %t8, 2040
; ONED-NEXT: affine coef=8 scope=warp: %col2 = or disjoint i32 %col, 2048
; ONED: affine coef=1 scope=warp: %half = and i32 %tid, 127
; ONED: constant value=0: %none = and i32 %t8, 7

define ptx_kernel void @layer_norm_rows(ptr addrspace(1) %x, ptr addrspace(1) %y) #0 {
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = and i32 %tid, 255
  %lane = and i32 %tid, 31
  %warp = lshr i32 %t, 5
  %t8 = shl nuw nsw i32 %tid, 3
  %col = and i32 %t8, 2040
  %col2 = or disjoint i32 %col, 2048
  %colx = xor i32 %col, 2048
  %half = and i32 %tid, 127
  %off = zext nneg i32 %col2 to i64
  %p = getelementptr half, ptr addrspace(1) %x, i64 %off
  %none = and i32 %t8, 7
  %v = load half, ptr addrspace(1) %p, align 2
  %q = getelementptr half, ptr addrspace(1) %y, i32 %half
  store half %v, ptr addrspace(1) %q, align 2
  %w = getelementptr i32, ptr addrspace(1) %y, i32 %warp
  store i32 %none, ptr addrspace(1) %w, align 4
  %z = getelementptr i32, ptr addrspace(1) %y, i32 %lane
  store i32 %colx, ptr addrspace(1) %z, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "nvvm.reqntid"="256" }

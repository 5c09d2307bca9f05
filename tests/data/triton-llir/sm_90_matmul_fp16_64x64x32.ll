; Triton 3.6.0's llir of tests/triton/kernels.py (sm_90_matmul_fp16_64x64x32; the Triton suite, tests/triton/compile_suite.py), with the NVPTX target triple added (Triton's llir has none).
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

; Function Attrs: nounwind
define ptx_kernel void @tiled_matmul(ptr addrspace(1) %0, ptr addrspace(1) %1, ptr addrspace(1) %2, i32 %3, i32 %4, i32 %5, i32 %6, i32 %7, i32 %8, ptr addrspace(1) readnone captures(none) %9, ptr addrspace(1) readnone captures(none) %10) local_unnamed_addr #0 !dbg !4 {
  %12 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7
  %13 = add i32 %3, 63, !dbg !8
  %14 = sdiv i32 %13, 64, !dbg !13
  %15 = add i32 %4, 63, !dbg !14
  %16 = sdiv i32 %15, 64, !dbg !16
  %17 = shl nsw i32 %16, 3, !dbg !17
  %18 = sdiv i32 %12, %17, !dbg !18
  %19 = shl i32 %18, 3, !dbg !19
  %20 = sub i32 %14, %19, !dbg !20
  %21 = tail call i32 @llvm.smin.i32(i32 %20, i32 8), !dbg !21
  %22 = mul i32 %19, %16, !dbg !22
  %23 = sub i32 %12, %22, !dbg !23
  %.frozen = freeze i32 %23, !dbg !24
  %.frozen165 = freeze i32 %21, !dbg !24
  %24 = sdiv i32 %.frozen, %.frozen165, !dbg !24
  %25 = mul i32 %24, %.frozen165, !dbg !25
  %.decomposed = sub i32 %.frozen, %25, !dbg !25
  %26 = add i32 %19, %.decomposed, !dbg !26
  %27 = shl i32 %26, 6, !dbg !27
  %28 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !28
  %29 = lshr i32 %28, 2, !dbg !28
  %30 = and i32 %29, 31, !dbg !28
  %31 = lshr i32 %28, 3, !dbg !28
  %32 = and i32 %31, 15, !dbg !28
  %33 = or disjoint i32 %32, 16, !dbg !28
  %34 = shl nuw nsw i32 %28, 3, !dbg !28
  %35 = and i32 %34, 56, !dbg !28
  %36 = or disjoint i32 %27, %30, !dbg !29
  %37 = or disjoint i32 %36, 32, !dbg !29
  %38 = shl i32 %24, 6, !dbg !30
  %39 = or disjoint i32 %38, %35, !dbg !31
  %40 = and i32 %34, 24, !dbg !32
  %41 = srem i32 %36, %3, !dbg !33
  %42 = srem i32 %37, %3, !dbg !33
  %43 = srem i32 %39, %4, !dbg !34
  %44 = mul i32 %41, %6, !dbg !35
  %45 = mul i32 %42, %6, !dbg !35
  %46 = sext i32 %44 to i64, !dbg !36
  %47 = getelementptr half, ptr addrspace(1) %0, i64 %46, !dbg !36
  %48 = sext i32 %45 to i64, !dbg !36
  %49 = getelementptr half, ptr addrspace(1) %0, i64 %48, !dbg !36
  %50 = zext nneg i32 %40 to i64, !dbg !37
  %51 = getelementptr half, ptr addrspace(1) %47, i64 %50, !dbg !37
  %52 = getelementptr half, ptr addrspace(1) %49, i64 %50, !dbg !37
  %53 = mul i32 %7, %32, !dbg !38
  %54 = mul i32 %7, %33, !dbg !38
  %55 = sext i32 %53 to i64, !dbg !39
  %56 = getelementptr half, ptr addrspace(1) %1, i64 %55, !dbg !39
  %57 = sext i32 %54 to i64, !dbg !39
  %58 = getelementptr half, ptr addrspace(1) %1, i64 %57, !dbg !39
  %59 = sext i32 %43 to i64, !dbg !40
  %60 = getelementptr half, ptr addrspace(1) %56, i64 %59, !dbg !40
  %61 = getelementptr half, ptr addrspace(1) %58, i64 %59, !dbg !40
  %62 = shl i32 %7, 5, !dbg !41
  %63 = icmp sgt i32 %5, 0, !dbg !42
  %64 = icmp slt i32 %40, %5, !dbg !43
  %65 = icmp slt i32 %32, %5, !dbg !43
  %66 = icmp slt i32 %33, %5, !dbg !43
  %67 = shl nuw nsw i32 %28, 4, !dbg !44
  %68 = and i32 %67, 2032, !dbg !44
  %69 = shl nuw nsw i32 %28, 1, !dbg !44
  %70 = and i32 %69, 48, !dbg !44
  %71 = xor i32 %68, %70, !dbg !44
  %72 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %71, !dbg !44
  %73 = select i1 %64, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %72, ptr addrspace(1) %51, i32 %73) #2, !dbg !44
  %74 = or disjoint i32 %71, 2048, !dbg !44
  %75 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %74, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %75, ptr addrspace(1) %52, i32 %73) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %76 = and i1 %63, %66, !dbg !42
  %77 = and i32 %69, 112, !dbg !45
  %78 = xor i32 %68, %77, !dbg !45
  %79 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %78, !dbg !45
  %80 = select i1 %65, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %79, ptr addrspace(1) %60, i32 %80) #2, !dbg !45
  %81 = or disjoint i32 %78, 2048, !dbg !45
  %82 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %81, !dbg !45
  %83 = select i1 %76, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %82, ptr addrspace(1) %61, i32 %83) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %84 = icmp sgt i32 %5, 32, !dbg !42
  %85 = getelementptr i8, ptr addrspace(1) %51, i64 64, !dbg !46
  %86 = getelementptr i8, ptr addrspace(1) %52, i64 64, !dbg !46
  %87 = sext i32 %62 to i64, !dbg !47
  %88 = getelementptr half, ptr addrspace(1) %60, i64 %87, !dbg !47
  %89 = getelementptr half, ptr addrspace(1) %61, i64 %87, !dbg !47
  %90 = add i32 %5, -32, !dbg !48
  %91 = icmp slt i32 %40, %90, !dbg !43
  %92 = icmp slt i32 %32, %90, !dbg !43
  %93 = icmp slt i32 %33, %90, !dbg !43
  %94 = and i1 %84, %91, !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %95 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096), i32 %71, !dbg !44
  %96 = select i1 %94, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %95, ptr addrspace(1) %85, i32 %96) #2, !dbg !44
  %97 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096), i32 %74, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %97, ptr addrspace(1) %86, i32 %96) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %98 = and i1 %84, %92, !dbg !42
  %99 = and i1 %84, %93, !dbg !42
  %100 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 20480), i32 %78, !dbg !45
  %101 = select i1 %98, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %100, ptr addrspace(1) %88, i32 %101) #2, !dbg !45
  %102 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 20480), i32 %81, !dbg !45
  %103 = select i1 %99, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %102, ptr addrspace(1) %89, i32 %103) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %104 = icmp sgt i32 %5, 64, !dbg !42
  %105 = getelementptr i8, ptr addrspace(1) %51, i64 128, !dbg !46
  %106 = getelementptr i8, ptr addrspace(1) %52, i64 128, !dbg !46
  %107 = getelementptr half, ptr addrspace(1) %88, i64 %87, !dbg !47
  %108 = getelementptr half, ptr addrspace(1) %89, i64 %87, !dbg !47
  %109 = add i32 %5, -64, !dbg !48
  %110 = icmp slt i32 %40, %109, !dbg !43
  %111 = icmp slt i32 %32, %109, !dbg !43
  %112 = icmp slt i32 %33, %109, !dbg !43
  %113 = and i1 %104, %110, !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %114 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 8192), i32 %71, !dbg !44
  %115 = select i1 %113, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %114, ptr addrspace(1) %105, i32 %115) #2, !dbg !44
  %116 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 8192), i32 %74, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %116, ptr addrspace(1) %106, i32 %115) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %117 = and i1 %104, %111, !dbg !42
  %118 = and i1 %104, %112, !dbg !42
  %119 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 24576), i32 %78, !dbg !45
  %120 = select i1 %117, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %119, ptr addrspace(1) %107, i32 %120) #2, !dbg !45
  %121 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 24576), i32 %81, !dbg !45
  %122 = select i1 %118, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %121, ptr addrspace(1) %108, i32 %122) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  br i1 %63, label %.lr.ph, label %._crit_edge, !dbg !42

.lr.ph:                                           ; preds = %11
  %123 = add nsw i32 %5, -96
  br label %124, !dbg !42

124:                                              ; preds = %.lr.ph, %124
  %125 = phi i32 [ -1, %.lr.ph ], [ %163, %124 ]
  %126 = phi i32 [ 2, %.lr.ph ], [ %284, %124 ]
  %.pn4869 = phi ptr addrspace(1) [ %108, %.lr.ph ], [ %281, %124 ]
  %.pn6468 = phi ptr addrspace(1) [ %107, %.lr.ph ], [ %280, %124 ]
  %.pn1667 = phi ptr addrspace(1) [ %106, %.lr.ph ], [ %279, %124 ]
  %.pn3266 = phi ptr addrspace(1) [ %105, %.lr.ph ], [ %278, %124 ]
  %127 = phi float [ 0.000000e+00, %.lr.ph ], [ %246, %124 ]
  %128 = phi float [ 0.000000e+00, %.lr.ph ], [ %247, %124 ]
  %129 = phi float [ 0.000000e+00, %.lr.ph ], [ %248, %124 ]
  %130 = phi float [ 0.000000e+00, %.lr.ph ], [ %249, %124 ]
  %131 = phi float [ 0.000000e+00, %.lr.ph ], [ %250, %124 ]
  %132 = phi float [ 0.000000e+00, %.lr.ph ], [ %251, %124 ]
  %133 = phi float [ 0.000000e+00, %.lr.ph ], [ %252, %124 ]
  %134 = phi float [ 0.000000e+00, %.lr.ph ], [ %253, %124 ]
  %135 = phi float [ 0.000000e+00, %.lr.ph ], [ %254, %124 ]
  %136 = phi float [ 0.000000e+00, %.lr.ph ], [ %255, %124 ]
  %137 = phi float [ 0.000000e+00, %.lr.ph ], [ %256, %124 ]
  %138 = phi float [ 0.000000e+00, %.lr.ph ], [ %257, %124 ]
  %139 = phi float [ 0.000000e+00, %.lr.ph ], [ %258, %124 ]
  %140 = phi float [ 0.000000e+00, %.lr.ph ], [ %259, %124 ]
  %141 = phi float [ 0.000000e+00, %.lr.ph ], [ %260, %124 ]
  %142 = phi float [ 0.000000e+00, %.lr.ph ], [ %261, %124 ]
  %143 = phi float [ 0.000000e+00, %.lr.ph ], [ %262, %124 ]
  %144 = phi float [ 0.000000e+00, %.lr.ph ], [ %263, %124 ]
  %145 = phi float [ 0.000000e+00, %.lr.ph ], [ %264, %124 ]
  %146 = phi float [ 0.000000e+00, %.lr.ph ], [ %265, %124 ]
  %147 = phi float [ 0.000000e+00, %.lr.ph ], [ %266, %124 ]
  %148 = phi float [ 0.000000e+00, %.lr.ph ], [ %267, %124 ]
  %149 = phi float [ 0.000000e+00, %.lr.ph ], [ %268, %124 ]
  %150 = phi float [ 0.000000e+00, %.lr.ph ], [ %269, %124 ]
  %151 = phi float [ 0.000000e+00, %.lr.ph ], [ %270, %124 ]
  %152 = phi float [ 0.000000e+00, %.lr.ph ], [ %271, %124 ]
  %153 = phi float [ 0.000000e+00, %.lr.ph ], [ %272, %124 ]
  %154 = phi float [ 0.000000e+00, %.lr.ph ], [ %273, %124 ]
  %155 = phi float [ 0.000000e+00, %.lr.ph ], [ %274, %124 ]
  %156 = phi float [ 0.000000e+00, %.lr.ph ], [ %275, %124 ]
  %157 = phi float [ 0.000000e+00, %.lr.ph ], [ %276, %124 ]
  %158 = phi float [ 0.000000e+00, %.lr.ph ], [ %277, %124 ]
  %159 = phi i32 [ 0, %.lr.ph ], [ %302, %124 ]
  %160 = icmp slt i32 %159, %123, !dbg !42
  %161 = add i32 %125, 1, !dbg !42
  %162 = icmp sgt i32 %161, 3, !dbg !42
  %163 = select i1 %162, i32 0, i32 %161, !dbg !42
  tail call void @llvm.nvvm.cp.async.wait.group(i32 4), !dbg !44
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %164 = shl i32 %163, 11, !dbg !44
  %165 = getelementptr half, ptr addrspace(3) @global_smem, i32 %164, !dbg !44
  %166 = getelementptr half, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %164, !dbg !45
  %167 = ptrtoint ptr addrspace(3) %165 to i32, !dbg !49
  %168 = lshr exact i32 %167, 4, !dbg !49
  %169 = and i32 %168, 16383, !dbg !49
  %170 = zext nneg i32 %169 to i64, !dbg !49
  %171 = ptrtoint ptr addrspace(3) %166 to i32, !dbg !49
  %172 = lshr exact i32 %171, 4, !dbg !49
  %173 = and i32 %172, 16383, !dbg !49
  %174 = zext nneg i32 %173 to i64, !dbg !49
  tail call void @llvm.nvvm.wgmma.fence.sync.aligned(), !dbg !49
  %175 = or disjoint i64 %170, -9223371899415822336, !dbg !49
  %176 = or disjoint i64 %174, 4611686293305294848, !dbg !49
  %177 = tail call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31}, $64, $65, $66, 1, 1, 0, 1;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,b"(float %127, float %128, float %129, float %130, float %131, float %132, float %133, float %134, float %135, float %136, float %137, float %138, float %139, float %140, float %141, float %142, float %143, float %144, float %145, float %146, float %147, float %148, float %149, float %150, float %151, float %152, float %153, float %154, float %155, float %156, float %157, float %158, i64 %175, i64 %176, i1 true) #2, !dbg !49
  %178 = add nuw nsw i64 %170, -9223371899415822334, !dbg !49
  %179 = add nuw nsw i64 %174, 4611686293305294976, !dbg !49
  %180 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 0, !dbg !49
  %181 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 1, !dbg !49
  %182 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 2, !dbg !49
  %183 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 3, !dbg !49
  %184 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 4, !dbg !49
  %185 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 5, !dbg !49
  %186 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 6, !dbg !49
  %187 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 7, !dbg !49
  %188 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 8, !dbg !49
  %189 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 9, !dbg !49
  %190 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 10, !dbg !49
  %191 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 11, !dbg !49
  %192 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 12, !dbg !49
  %193 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 13, !dbg !49
  %194 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 14, !dbg !49
  %195 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 15, !dbg !49
  %196 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 16, !dbg !49
  %197 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 17, !dbg !49
  %198 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 18, !dbg !49
  %199 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 19, !dbg !49
  %200 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 20, !dbg !49
  %201 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 21, !dbg !49
  %202 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 22, !dbg !49
  %203 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 23, !dbg !49
  %204 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 24, !dbg !49
  %205 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 25, !dbg !49
  %206 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 26, !dbg !49
  %207 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 27, !dbg !49
  %208 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 28, !dbg !49
  %209 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 29, !dbg !49
  %210 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 30, !dbg !49
  %211 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %177, 31, !dbg !49
  %212 = tail call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31}, $64, $65, $66, 1, 1, 0, 1;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,b"(float %180, float %181, float %182, float %183, float %184, float %185, float %186, float %187, float %188, float %189, float %190, float %191, float %192, float %193, float %194, float %195, float %196, float %197, float %198, float %199, float %200, float %201, float %202, float %203, float %204, float %205, float %206, float %207, float %208, float %209, float %210, float %211, i64 %178, i64 %179, i1 true) #2, !dbg !49
  %213 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 0, !dbg !49
  %214 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 1, !dbg !49
  %215 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 2, !dbg !49
  %216 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 3, !dbg !49
  %217 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 4, !dbg !49
  %218 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 5, !dbg !49
  %219 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 6, !dbg !49
  %220 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 7, !dbg !49
  %221 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 8, !dbg !49
  %222 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 9, !dbg !49
  %223 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 10, !dbg !49
  %224 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 11, !dbg !49
  %225 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 12, !dbg !49
  %226 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 13, !dbg !49
  %227 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 14, !dbg !49
  %228 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 15, !dbg !49
  %229 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 16, !dbg !49
  %230 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 17, !dbg !49
  %231 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 18, !dbg !49
  %232 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 19, !dbg !49
  %233 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 20, !dbg !49
  %234 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 21, !dbg !49
  %235 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 22, !dbg !49
  %236 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 23, !dbg !49
  %237 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 24, !dbg !49
  %238 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 25, !dbg !49
  %239 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 26, !dbg !49
  %240 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 27, !dbg !49
  %241 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 28, !dbg !49
  %242 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 29, !dbg !49
  %243 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 30, !dbg !49
  %244 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %212, 31, !dbg !49
  tail call void @llvm.nvvm.wgmma.commit_group.sync.aligned(), !dbg !49
  %245 = tail call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } asm sideeffect "// wait for regs: $0,$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31,$32,$33,$34,$35,$36,$37\0A\09wgmma.wait_group.sync.aligned 1;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=l,=r,=r,=l,=r,=r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37"(float %213, float %214, float %215, float %216, float %217, float %218, float %219, float %220, float %221, float %222, float %223, float %224, float %225, float %226, float %227, float %228, float %229, float %230, float %231, float %232, float %233, float %234, float %235, float %236, float %237, float %238, float %239, float %240, float %241, float %242, float %243, float %244, ptr addrspace(3) %165, i32 0, i32 0, ptr addrspace(3) %166, i32 0, i32 0) #2, !dbg !49
  %246 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 0, !dbg !49
  %247 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 1, !dbg !49
  %248 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 2, !dbg !49
  %249 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 3, !dbg !49
  %250 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 4, !dbg !49
  %251 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 5, !dbg !49
  %252 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 6, !dbg !49
  %253 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 7, !dbg !49
  %254 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 8, !dbg !49
  %255 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 9, !dbg !49
  %256 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 10, !dbg !49
  %257 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 11, !dbg !49
  %258 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 12, !dbg !49
  %259 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 13, !dbg !49
  %260 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 14, !dbg !49
  %261 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 15, !dbg !49
  %262 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 16, !dbg !49
  %263 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 17, !dbg !49
  %264 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 18, !dbg !49
  %265 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 19, !dbg !49
  %266 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 20, !dbg !49
  %267 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 21, !dbg !49
  %268 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 22, !dbg !49
  %269 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 23, !dbg !49
  %270 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 24, !dbg !49
  %271 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 25, !dbg !49
  %272 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 26, !dbg !49
  %273 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 27, !dbg !49
  %274 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 28, !dbg !49
  %275 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 29, !dbg !49
  %276 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 30, !dbg !49
  %277 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, ptr addrspace(3), i32, i32, ptr addrspace(3), i32, i32 } %245, 31, !dbg !49
  %278 = getelementptr i8, ptr addrspace(1) %.pn3266, i64 64, !dbg !46
  %279 = getelementptr i8, ptr addrspace(1) %.pn1667, i64 64, !dbg !46
  %280 = getelementptr half, ptr addrspace(1) %.pn6468, i64 %87, !dbg !47
  %281 = getelementptr half, ptr addrspace(1) %.pn4869, i64 %87, !dbg !47
  %282 = add i32 %126, 1, !dbg !42
  %283 = icmp sgt i32 %282, 3, !dbg !42
  %284 = select i1 %283, i32 0, i32 %282, !dbg !42
  %285 = sub i32 %123, %159, !dbg !48
  %286 = icmp slt i32 %40, %285, !dbg !43
  %287 = icmp slt i32 %32, %285, !dbg !43
  %288 = icmp slt i32 %33, %285, !dbg !43
  %289 = shl i32 %284, 11, !dbg !44
  %290 = getelementptr half, ptr addrspace(3) @global_smem, i32 %289, !dbg !44
  %291 = and i1 %160, %286, !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %292 = getelementptr inbounds nuw i8, ptr addrspace(3) %290, i32 %71, !dbg !44
  %293 = select i1 %291, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %292, ptr addrspace(1) %278, i32 %293) #2, !dbg !44
  %294 = getelementptr inbounds nuw i8, ptr addrspace(3) %290, i32 %74, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %294, ptr addrspace(1) %279, i32 %293) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %295 = getelementptr half, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %289, !dbg !45
  %296 = and i1 %160, %287, !dbg !42
  %297 = and i1 %160, %288, !dbg !42
  %298 = getelementptr inbounds nuw i8, ptr addrspace(3) %295, i32 %78, !dbg !45
  %299 = select i1 %296, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %298, ptr addrspace(1) %280, i32 %299) #2, !dbg !45
  %300 = getelementptr inbounds nuw i8, ptr addrspace(3) %295, i32 %81, !dbg !45
  %301 = select i1 %297, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %300, ptr addrspace(1) %281, i32 %301) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %302 = add i32 %159, 32, !dbg !42
  %303 = icmp slt i32 %302, %5, !dbg !42
  br i1 %303, label %124, label %._crit_edge, !dbg !42

._crit_edge:                                      ; preds = %124, %11
  %304 = phi float [ 0.000000e+00, %11 ], [ %246, %124 ], !dbg !50
  %305 = phi float [ 0.000000e+00, %11 ], [ %247, %124 ], !dbg !50
  %306 = phi float [ 0.000000e+00, %11 ], [ %248, %124 ], !dbg !50
  %307 = phi float [ 0.000000e+00, %11 ], [ %249, %124 ], !dbg !50
  %308 = phi float [ 0.000000e+00, %11 ], [ %250, %124 ], !dbg !50
  %309 = phi float [ 0.000000e+00, %11 ], [ %251, %124 ], !dbg !50
  %310 = phi float [ 0.000000e+00, %11 ], [ %252, %124 ], !dbg !50
  %311 = phi float [ 0.000000e+00, %11 ], [ %253, %124 ], !dbg !50
  %312 = phi float [ 0.000000e+00, %11 ], [ %254, %124 ], !dbg !50
  %313 = phi float [ 0.000000e+00, %11 ], [ %255, %124 ], !dbg !50
  %314 = phi float [ 0.000000e+00, %11 ], [ %256, %124 ], !dbg !50
  %315 = phi float [ 0.000000e+00, %11 ], [ %257, %124 ], !dbg !50
  %316 = phi float [ 0.000000e+00, %11 ], [ %258, %124 ], !dbg !50
  %317 = phi float [ 0.000000e+00, %11 ], [ %259, %124 ], !dbg !50
  %318 = phi float [ 0.000000e+00, %11 ], [ %260, %124 ], !dbg !50
  %319 = phi float [ 0.000000e+00, %11 ], [ %261, %124 ], !dbg !50
  %320 = phi float [ 0.000000e+00, %11 ], [ %262, %124 ], !dbg !50
  %321 = phi float [ 0.000000e+00, %11 ], [ %263, %124 ], !dbg !50
  %322 = phi float [ 0.000000e+00, %11 ], [ %264, %124 ], !dbg !50
  %323 = phi float [ 0.000000e+00, %11 ], [ %265, %124 ], !dbg !50
  %324 = phi float [ 0.000000e+00, %11 ], [ %266, %124 ], !dbg !50
  %325 = phi float [ 0.000000e+00, %11 ], [ %267, %124 ], !dbg !50
  %326 = phi float [ 0.000000e+00, %11 ], [ %268, %124 ], !dbg !50
  %327 = phi float [ 0.000000e+00, %11 ], [ %269, %124 ], !dbg !50
  %328 = phi float [ 0.000000e+00, %11 ], [ %270, %124 ], !dbg !50
  %329 = phi float [ 0.000000e+00, %11 ], [ %271, %124 ], !dbg !50
  %330 = phi float [ 0.000000e+00, %11 ], [ %272, %124 ], !dbg !50
  %331 = phi float [ 0.000000e+00, %11 ], [ %273, %124 ], !dbg !50
  %332 = phi float [ 0.000000e+00, %11 ], [ %274, %124 ], !dbg !50
  %333 = phi float [ 0.000000e+00, %11 ], [ %275, %124 ], !dbg !50
  %334 = phi float [ 0.000000e+00, %11 ], [ %276, %124 ], !dbg !50
  %335 = phi float [ 0.000000e+00, %11 ], [ %277, %124 ], !dbg !50
  %336 = or disjoint i32 %27, %32, !dbg !28
  %337 = or disjoint i32 %336, 48, !dbg !29
  %338 = or disjoint i32 %336, 32, !dbg !29
  %339 = or disjoint i32 %27, %33, !dbg !29
  %340 = tail call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "// wait for regs: $0,$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31\0A\09wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"(float %304, float %305, float %306, float %307, float %308, float %309, float %310, float %311, float %312, float %313, float %314, float %315, float %316, float %317, float %318, float %319, float %320, float %321, float %322, float %323, float %324, float %325, float %326, float %327, float %328, float %329, float %330, float %331, float %332, float %333, float %334, float %335) #2, !dbg !42
  tail call void @llvm.nvvm.cp.async.wait.group(i32 0), !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !42
  %341 = mul i32 %336, %8, !dbg !51
  %342 = mul i32 %339, %8, !dbg !51
  %343 = mul i32 %8, %338, !dbg !51
  %344 = mul i32 %8, %337, !dbg !51
  %345 = sext i32 %341 to i64, !dbg !52
  %346 = getelementptr half, ptr addrspace(1) %2, i64 %345, !dbg !52
  %347 = sext i32 %342 to i64, !dbg !52
  %348 = getelementptr half, ptr addrspace(1) %2, i64 %347, !dbg !52
  %349 = sext i32 %343 to i64, !dbg !52
  %350 = getelementptr half, ptr addrspace(1) %2, i64 %349, !dbg !52
  %351 = sext i32 %344 to i64, !dbg !52
  %352 = getelementptr half, ptr addrspace(1) %2, i64 %351, !dbg !52
  %353 = sext i32 %39 to i64, !dbg !53
  %354 = getelementptr half, ptr addrspace(1) %346, i64 %353, !dbg !53
  %355 = getelementptr half, ptr addrspace(1) %348, i64 %353, !dbg !53
  %356 = getelementptr half, ptr addrspace(1) %350, i64 %353, !dbg !53
  %357 = getelementptr half, ptr addrspace(1) %352, i64 %353, !dbg !53
  %358 = icmp slt i32 %336, %3, !dbg !54
  %359 = icmp slt i32 %339, %3, !dbg !54
  %360 = icmp slt i32 %338, %3, !dbg !54
  %361 = icmp slt i32 %337, %3, !dbg !54
  %362 = icmp slt i32 %39, %4, !dbg !55
  %363 = and i1 %358, %362, !dbg !56
  %364 = and i1 %359, %362, !dbg !56
  %365 = and i1 %360, %362, !dbg !56
  %366 = and i1 %361, %362, !dbg !56
  %367 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 0, !dbg !57
  %368 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 1, !dbg !57
  %369 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 2, !dbg !57
  %370 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 3, !dbg !57
  %371 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 4, !dbg !57
  %372 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 5, !dbg !57
  %373 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 6, !dbg !57
  %374 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 7, !dbg !57
  %375 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 8, !dbg !57
  %376 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 9, !dbg !57
  %377 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 10, !dbg !57
  %378 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 11, !dbg !57
  %379 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 12, !dbg !57
  %380 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 13, !dbg !57
  %381 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 14, !dbg !57
  %382 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 15, !dbg !57
  %383 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 16, !dbg !57
  %384 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 17, !dbg !57
  %385 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 18, !dbg !57
  %386 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 19, !dbg !57
  %387 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 20, !dbg !57
  %388 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 21, !dbg !57
  %389 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 22, !dbg !57
  %390 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 23, !dbg !57
  %391 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 24, !dbg !57
  %392 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 25, !dbg !57
  %393 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 26, !dbg !57
  %394 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 27, !dbg !57
  %395 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 28, !dbg !57
  %396 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 29, !dbg !57
  %397 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 30, !dbg !57
  %398 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %340, 31, !dbg !57
  %399 = insertelement <2 x float> poison, float %367, i64 0, !dbg !57
  %400 = insertelement <2 x float> %399, float %368, i64 1, !dbg !57
  %401 = fptrunc <2 x float> %400 to <2 x half>, !dbg !57
  %402 = insertelement <2 x float> poison, float %369, i64 0, !dbg !57
  %403 = insertelement <2 x float> %402, float %370, i64 1, !dbg !57
  %404 = fptrunc <2 x float> %403 to <2 x half>, !dbg !57
  %405 = insertelement <2 x float> poison, float %371, i64 0, !dbg !57
  %406 = insertelement <2 x float> %405, float %372, i64 1, !dbg !57
  %407 = fptrunc <2 x float> %406 to <2 x half>, !dbg !57
  %408 = insertelement <2 x float> poison, float %373, i64 0, !dbg !57
  %409 = insertelement <2 x float> %408, float %374, i64 1, !dbg !57
  %410 = fptrunc <2 x float> %409 to <2 x half>, !dbg !57
  %411 = insertelement <2 x float> poison, float %375, i64 0, !dbg !57
  %412 = insertelement <2 x float> %411, float %376, i64 1, !dbg !57
  %413 = fptrunc <2 x float> %412 to <2 x half>, !dbg !57
  %414 = insertelement <2 x float> poison, float %377, i64 0, !dbg !57
  %415 = insertelement <2 x float> %414, float %378, i64 1, !dbg !57
  %416 = fptrunc <2 x float> %415 to <2 x half>, !dbg !57
  %417 = insertelement <2 x float> poison, float %379, i64 0, !dbg !57
  %418 = insertelement <2 x float> %417, float %380, i64 1, !dbg !57
  %419 = fptrunc <2 x float> %418 to <2 x half>, !dbg !57
  %420 = insertelement <2 x float> poison, float %381, i64 0, !dbg !57
  %421 = insertelement <2 x float> %420, float %382, i64 1, !dbg !57
  %422 = fptrunc <2 x float> %421 to <2 x half>, !dbg !57
  %423 = insertelement <2 x float> poison, float %383, i64 0, !dbg !57
  %424 = insertelement <2 x float> %423, float %384, i64 1, !dbg !57
  %425 = fptrunc <2 x float> %424 to <2 x half>, !dbg !57
  %426 = insertelement <2 x float> poison, float %385, i64 0, !dbg !57
  %427 = insertelement <2 x float> %426, float %386, i64 1, !dbg !57
  %428 = fptrunc <2 x float> %427 to <2 x half>, !dbg !57
  %429 = insertelement <2 x float> poison, float %387, i64 0, !dbg !57
  %430 = insertelement <2 x float> %429, float %388, i64 1, !dbg !57
  %431 = fptrunc <2 x float> %430 to <2 x half>, !dbg !57
  %432 = insertelement <2 x float> poison, float %389, i64 0, !dbg !57
  %433 = insertelement <2 x float> %432, float %390, i64 1, !dbg !57
  %434 = fptrunc <2 x float> %433 to <2 x half>, !dbg !57
  %435 = insertelement <2 x float> poison, float %391, i64 0, !dbg !57
  %436 = insertelement <2 x float> %435, float %392, i64 1, !dbg !57
  %437 = fptrunc <2 x float> %436 to <2 x half>, !dbg !57
  %438 = insertelement <2 x float> poison, float %393, i64 0, !dbg !57
  %439 = insertelement <2 x float> %438, float %394, i64 1, !dbg !57
  %440 = fptrunc <2 x float> %439 to <2 x half>, !dbg !57
  %441 = insertelement <2 x float> poison, float %395, i64 0, !dbg !57
  %442 = insertelement <2 x float> %441, float %396, i64 1, !dbg !57
  %443 = fptrunc <2 x float> %442 to <2 x half>, !dbg !57
  %444 = insertelement <2 x float> poison, float %397, i64 0, !dbg !57
  %445 = insertelement <2 x float> %444, float %398, i64 1, !dbg !57
  %446 = fptrunc <2 x float> %445 to <2 x half>, !dbg !57
  %447 = and i32 %67, 1536, !dbg !58
  %448 = and i32 %28, 1, !dbg !58
  %449 = shl nuw nsw i32 %448, 5, !dbg !58
  %450 = and i32 %28, 2, !dbg !58
  %451 = icmp eq i32 %450, 0, !dbg !58
  %452 = select i1 %451, i32 0, i32 4160, !dbg !58
  %453 = and i32 %28, 4, !dbg !58
  %454 = icmp eq i32 %453, 0, !dbg !58
  %455 = shl nuw nsw i32 %453, 2, !dbg !58
  %456 = and i32 %28, 8, !dbg !58
  %457 = icmp eq i32 %456, 0, !dbg !58
  %458 = select i1 %457, i32 0, i32 2080, !dbg !58
  %459 = and i32 %28, 16, !dbg !58
  %460 = icmp eq i32 %459, 0, !dbg !58
  %461 = shl nuw nsw i32 %459, 3, !dbg !58
  %462 = or disjoint i32 %452, %455, !dbg !58
  %463 = or disjoint i32 %462, %461, !dbg !58
  %464 = or disjoint i32 %447, %449, !dbg !58
  %465 = xor i32 %464, %458, !dbg !58
  %466 = or disjoint i32 %463, %465, !dbg !58
  %467 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %466, !dbg !58
  %468 = bitcast <2 x half> %401 to i32, !dbg !58
  %469 = bitcast <2 x half> %407 to i32, !dbg !58
  %470 = bitcast <2 x half> %413 to i32, !dbg !58
  %471 = bitcast <2 x half> %419 to i32, !dbg !58
  %472 = insertelement <4 x i32> poison, i32 %468, i64 0, !dbg !58
  %473 = insertelement <4 x i32> %472, i32 %469, i64 1, !dbg !58
  %474 = insertelement <4 x i32> %473, i32 %470, i64 2, !dbg !58
  %475 = insertelement <4 x i32> %474, i32 %471, i64 3, !dbg !58
  store <4 x i32> %475, ptr addrspace(3) %467, align 16, !dbg !58
  %476 = getelementptr inbounds nuw i8, ptr addrspace(3) %467, i32 256, !dbg !58
  %477 = bitcast <2 x half> %404 to i32, !dbg !58
  %478 = bitcast <2 x half> %410 to i32, !dbg !58
  %479 = bitcast <2 x half> %416 to i32, !dbg !58
  %480 = bitcast <2 x half> %422 to i32, !dbg !58
  %481 = insertelement <4 x i32> poison, i32 %477, i64 0, !dbg !58
  %482 = insertelement <4 x i32> %481, i32 %478, i64 1, !dbg !58
  %483 = insertelement <4 x i32> %482, i32 %479, i64 2, !dbg !58
  %484 = insertelement <4 x i32> %483, i32 %480, i64 3, !dbg !58
  store <4 x i32> %484, ptr addrspace(3) %476, align 16, !dbg !58
  %485 = xor i32 %466, 64, !dbg !58
  %486 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %485, !dbg !58
  %487 = bitcast <2 x half> %425 to i32, !dbg !58
  %488 = bitcast <2 x half> %431 to i32, !dbg !58
  %489 = bitcast <2 x half> %437 to i32, !dbg !58
  %490 = bitcast <2 x half> %443 to i32, !dbg !58
  %491 = insertelement <4 x i32> poison, i32 %487, i64 0, !dbg !58
  %492 = insertelement <4 x i32> %491, i32 %488, i64 1, !dbg !58
  %493 = insertelement <4 x i32> %492, i32 %489, i64 2, !dbg !58
  %494 = insertelement <4 x i32> %493, i32 %490, i64 3, !dbg !58
  store <4 x i32> %494, ptr addrspace(3) %486, align 16, !dbg !58
  %495 = getelementptr inbounds nuw i8, ptr addrspace(3) %486, i32 256, !dbg !58
  %496 = bitcast <2 x half> %428 to i32, !dbg !58
  %497 = bitcast <2 x half> %434 to i32, !dbg !58
  %498 = bitcast <2 x half> %440 to i32, !dbg !58
  %499 = bitcast <2 x half> %446 to i32, !dbg !58
  %500 = insertelement <4 x i32> poison, i32 %496, i64 0, !dbg !58
  %501 = insertelement <4 x i32> %500, i32 %497, i64 1, !dbg !58
  %502 = insertelement <4 x i32> %501, i32 %498, i64 2, !dbg !58
  %503 = insertelement <4 x i32> %502, i32 %499, i64 3, !dbg !58
  store <4 x i32> %503, ptr addrspace(3) %495, align 16, !dbg !58
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !58
  %504 = shl nuw nsw i32 %28, 2, !dbg !58
  %505 = and i32 %504, 416, !dbg !58
  %506 = shl nuw nsw i32 %448, 6, !dbg !58
  %507 = shl nuw nsw i32 %450, 3, !dbg !58
  %508 = select i1 %454, i32 0, i32 2080, !dbg !58
  %509 = select i1 %460, i32 0, i32 4160, !dbg !58
  %510 = or disjoint i32 %505, %506, !dbg !58
  %511 = or disjoint i32 %508, %509, !dbg !58
  %512 = xor i32 %511, %510, !dbg !58
  %513 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %507, !dbg !58
  %514 = getelementptr inbounds nuw i8, ptr addrspace(3) %513, i32 %512, !dbg !58
  %515 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %514), !dbg !58
  %516 = extractvalue { i32, i32, i32, i32 } %515, 0, !dbg !58
  %517 = extractvalue { i32, i32, i32, i32 } %515, 1, !dbg !58
  %518 = extractvalue { i32, i32, i32, i32 } %515, 2, !dbg !58
  %519 = extractvalue { i32, i32, i32, i32 } %515, 3, !dbg !58
  %520 = getelementptr inbounds nuw i8, ptr addrspace(3) %514, i32 512, !dbg !58
  %521 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) nonnull %520), !dbg !58
  %522 = extractvalue { i32, i32, i32, i32 } %521, 0, !dbg !58
  %523 = extractvalue { i32, i32, i32, i32 } %521, 1, !dbg !58
  %524 = extractvalue { i32, i32, i32, i32 } %521, 2, !dbg !58
  %525 = extractvalue { i32, i32, i32, i32 } %521, 3, !dbg !58
  %526 = getelementptr inbounds nuw i8, ptr addrspace(3) %514, i32 1024, !dbg !58
  %527 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) nonnull %526), !dbg !58
  %528 = extractvalue { i32, i32, i32, i32 } %527, 0, !dbg !58
  %529 = extractvalue { i32, i32, i32, i32 } %527, 1, !dbg !58
  %530 = extractvalue { i32, i32, i32, i32 } %527, 2, !dbg !58
  %531 = extractvalue { i32, i32, i32, i32 } %527, 3, !dbg !58
  %532 = getelementptr inbounds nuw i8, ptr addrspace(3) %514, i32 1536, !dbg !58
  %533 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) nonnull %532), !dbg !58
  %534 = extractvalue { i32, i32, i32, i32 } %533, 0, !dbg !58
  %535 = extractvalue { i32, i32, i32, i32 } %533, 1, !dbg !58
  %536 = extractvalue { i32, i32, i32, i32 } %533, 2, !dbg !58
  %537 = extractvalue { i32, i32, i32, i32 } %533, 3, !dbg !58
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %516, i32 %517, i32 %518, i32 %519, ptr addrspace(1) %354, i1 %363) #2, !dbg !58
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %522, i32 %523, i32 %524, i32 %525, ptr addrspace(1) %355, i1 %364) #2, !dbg !58
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %528, i32 %529, i32 %530, i32 %531, ptr addrspace(1) %356, i1 %365) #2, !dbg !58
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %534, i32 %535, i32 %536, i32 %537, ptr addrspace(1) %357, i1 %366) #2, !dbg !58
  ret void, !dbg !59
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smin.i32(i32, i32) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: nounwind
declare void @llvm.nvvm.cp.async.commit.group() #2

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #3

; Function Attrs: nounwind
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg) #2

; Function Attrs: nocallback nofree nounwind memory(argmem: read)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) readonly captures(none)) #4

; Function Attrs: convergent nounwind
declare void @llvm.nvvm.wgmma.fence.sync.aligned() #5

; Function Attrs: convergent nounwind
declare void @llvm.nvvm.wgmma.commit_group.sync.aligned() #5

attributes #0 = { nounwind "nvvm.reqntid"="128" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { nocallback nofree nounwind memory(argmem: read) }
attributes #5 = { convergent nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "kernels.py", directory: "/work/main/tests/triton")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!4 = distinct !DISubprogram(name: "tiled_matmul", linkageName: "tiled_matmul", scope: !1, file: !1, line: 83, type: !5, scopeLine: 83, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 93, column: 24, scope: !4)
!8 = !DILocation(line: 43, column: 17, scope: !9, inlinedAt: !11)
!9 = distinct !DILexicalBlockFile(scope: !4, file: !10, discriminator: 0)
!10 = !DIFile(filename: "standard.py", directory: "/work/main/.tools/triton/triton/language")
!11 = !DILocation(line: 94, column: 25, scope: !12)
!12 = distinct !DILexicalBlockFile(scope: !4, file: !1, discriminator: 0)
!13 = !DILocation(line: 43, column: 30, scope: !9, inlinedAt: !11)
!14 = !DILocation(line: 43, column: 17, scope: !9, inlinedAt: !15)
!15 = !DILocation(line: 95, column: 25, scope: !12)
!16 = !DILocation(line: 43, column: 30, scope: !9, inlinedAt: !15)
!17 = !DILocation(line: 96, column: 29, scope: !4)
!18 = !DILocation(line: 96, column: 19, scope: !4)
!19 = !DILocation(line: 97, column: 21, scope: !4)
!20 = !DILocation(line: 98, column: 39, scope: !4)
!21 = !DILocation(line: 98, column: 48, scope: !4)
!22 = !DILocation(line: 99, column: 36, scope: !4)
!23 = !DILocation(line: 99, column: 19, scope: !4)
!24 = !DILocation(line: 101, column: 23, scope: !4)
!25 = !DILocation(line: 100, column: 32, scope: !4)
!26 = !DILocation(line: 100, column: 23, scope: !4)
!27 = !DILocation(line: 103, column: 20, scope: !4)
!28 = !DILocation(line: 103, column: 43, scope: !4)
!29 = !DILocation(line: 103, column: 30, scope: !4)
!30 = !DILocation(line: 104, column: 20, scope: !4)
!31 = !DILocation(line: 104, column: 30, scope: !4)
!32 = !DILocation(line: 105, column: 22, scope: !4)
!33 = !DILocation(line: 107, column: 54, scope: !4)
!34 = !DILocation(line: 108, column: 54, scope: !4)
!35 = !DILocation(line: 109, column: 38, scope: !4)
!36 = !DILocation(line: 109, column: 19, scope: !4)
!37 = !DILocation(line: 109, column: 53, scope: !4)
!38 = !DILocation(line: 110, column: 33, scope: !4)
!39 = !DILocation(line: 110, column: 19, scope: !4)
!40 = !DILocation(line: 110, column: 48, scope: !4)
!41 = !DILocation(line: 122, column: 26, scope: !4)
!42 = !DILocation(line: 116, column: 26, scope: !4)
!43 = !DILocation(line: 117, column: 20, scope: !4)
!44 = !DILocation(line: 118, column: 20, scope: !4)
!45 = !DILocation(line: 119, column: 20, scope: !4)
!46 = !DILocation(line: 121, column: 16, scope: !4)
!47 = !DILocation(line: 122, column: 16, scope: !4)
!48 = !DILocation(line: 117, column: 24, scope: !4)
!49 = !DILocation(line: 120, column: 27, scope: !4)
!50 = !DILocation(line: 115, column: 23, scope: !4)
!51 = !DILocation(line: 124, column: 35, scope: !4)
!52 = !DILocation(line: 124, column: 19, scope: !4)
!53 = !DILocation(line: 124, column: 50, scope: !4)
!54 = !DILocation(line: 125, column: 73, scope: !4)
!55 = !DILocation(line: 125, column: 95, scope: !4)
!56 = !DILocation(line: 125, column: 79, scope: !4)
!57 = !DILocation(line: 125, column: 26, scope: !4)
!58 = !DILocation(line: 125, column: 19, scope: !4)
!59 = !DILocation(line: 125, column: 4, scope: !4)

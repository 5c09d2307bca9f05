; Triton 3.6.0's llir of tests/triton/kernels.py (sm_80_matmul_fp16_64x64x32; the Triton suite, tests/triton/compile_suite.py), with the NVPTX target triple added (Triton's llir has none).
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
  %.frozen228 = freeze i32 %21, !dbg !24
  %24 = sdiv i32 %.frozen, %.frozen228, !dbg !24
  %25 = mul i32 %24, %.frozen228, !dbg !25
  %.decomposed = sub i32 %.frozen, %25, !dbg !25
  %26 = add i32 %19, %.decomposed, !dbg !26
  %27 = shl i32 %26, 6, !dbg !27
  %28 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !28
  %29 = lshr i32 %28, 2, !dbg !28
  %30 = and i32 %29, 31, !dbg !28
  %31 = lshr i32 %28, 3, !dbg !28
  %32 = and i32 %31, 15, !dbg !28
  %33 = or disjoint i32 %32, 16, !dbg !28
  %34 = and i32 %28, 7, !dbg !28
  %35 = shl nuw nsw i32 %34, 3, !dbg !28
  %36 = or disjoint i32 %27, %30, !dbg !29
  %37 = or disjoint i32 %36, 32, !dbg !29
  %38 = shl i32 %24, 6, !dbg !30
  %39 = or disjoint i32 %38, %35, !dbg !31
  %40 = and i32 %28, 3, !dbg !32
  %41 = shl nuw nsw i32 %40, 3, !dbg !32
  %42 = srem i32 %36, %3, !dbg !33
  %43 = srem i32 %37, %3, !dbg !33
  %44 = srem i32 %39, %4, !dbg !34
  %45 = mul i32 %42, %6, !dbg !35
  %46 = mul i32 %43, %6, !dbg !35
  %47 = sext i32 %45 to i64, !dbg !36
  %48 = getelementptr half, ptr addrspace(1) %0, i64 %47, !dbg !36
  %49 = sext i32 %46 to i64, !dbg !36
  %50 = getelementptr half, ptr addrspace(1) %0, i64 %49, !dbg !36
  %51 = zext nneg i32 %41 to i64, !dbg !37
  %52 = getelementptr half, ptr addrspace(1) %48, i64 %51, !dbg !37
  %53 = getelementptr half, ptr addrspace(1) %50, i64 %51, !dbg !37
  %54 = mul i32 %7, %32, !dbg !38
  %55 = mul i32 %7, %33, !dbg !38
  %56 = sext i32 %54 to i64, !dbg !39
  %57 = getelementptr half, ptr addrspace(1) %1, i64 %56, !dbg !39
  %58 = sext i32 %55 to i64, !dbg !39
  %59 = getelementptr half, ptr addrspace(1) %1, i64 %58, !dbg !39
  %60 = sext i32 %44 to i64, !dbg !40
  %61 = getelementptr half, ptr addrspace(1) %57, i64 %60, !dbg !40
  %62 = getelementptr half, ptr addrspace(1) %59, i64 %60, !dbg !40
  %63 = shl i32 %7, 5, !dbg !41
  %64 = icmp sgt i32 %5, 0, !dbg !42
  %65 = icmp slt i32 %41, %5, !dbg !43
  %66 = icmp slt i32 %32, %5, !dbg !43
  %67 = icmp slt i32 %33, %5, !dbg !43
  %68 = and i1 %64, %65, !dbg !42
  %69 = shl nuw nsw i32 %28, 4, !dbg !44
  %70 = and i32 %69, 2032, !dbg !44
  %71 = shl nuw nsw i32 %28, 1, !dbg !44
  %72 = and i32 %71, 48, !dbg !44
  %73 = xor i32 %70, %72, !dbg !44
  %74 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %73, !dbg !44
  %75 = select i1 %68, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %74, ptr addrspace(1) %52, i32 %75) #2, !dbg !44
  %76 = or disjoint i32 %73, 2048, !dbg !44
  %77 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %76, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %77, ptr addrspace(1) %53, i32 %75) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %78 = and i1 %64, %67, !dbg !42
  %79 = and i32 %71, 112, !dbg !45
  %80 = xor i32 %70, %79, !dbg !45
  %81 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 12288), i32 %80, !dbg !45
  %82 = select i1 %66, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %81, ptr addrspace(1) %61, i32 %82) #2, !dbg !45
  %83 = or disjoint i32 %80, 2048, !dbg !45
  %84 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 12288), i32 %83, !dbg !45
  %85 = select i1 %78, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %84, ptr addrspace(1) %62, i32 %85) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %86 = icmp sgt i32 %5, 32, !dbg !42
  %87 = getelementptr i8, ptr addrspace(1) %52, i64 64, !dbg !46
  %88 = getelementptr i8, ptr addrspace(1) %53, i64 64, !dbg !46
  %89 = sext i32 %63 to i64, !dbg !47
  %90 = getelementptr half, ptr addrspace(1) %61, i64 %89, !dbg !47
  %91 = getelementptr half, ptr addrspace(1) %62, i64 %89, !dbg !47
  %92 = add i32 %5, -32, !dbg !48
  %93 = icmp slt i32 %41, %92, !dbg !43
  %94 = icmp slt i32 %32, %92, !dbg !43
  %95 = icmp slt i32 %33, %92, !dbg !43
  %96 = and i1 %86, %93, !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %97 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096), i32 %73, !dbg !44
  %98 = select i1 %96, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %97, ptr addrspace(1) %87, i32 %98) #2, !dbg !44
  %99 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096), i32 %76, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %99, ptr addrspace(1) %88, i32 %98) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %100 = and i1 %86, %94, !dbg !42
  %101 = and i1 %86, %95, !dbg !42
  %102 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %80, !dbg !45
  %103 = select i1 %100, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %102, ptr addrspace(1) %90, i32 %103) #2, !dbg !45
  %104 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %83, !dbg !45
  %105 = select i1 %101, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %104, ptr addrspace(1) %91, i32 %105) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %106 = icmp sgt i32 %5, 64, !dbg !42
  %107 = getelementptr i8, ptr addrspace(1) %52, i64 128, !dbg !46
  %108 = getelementptr i8, ptr addrspace(1) %53, i64 128, !dbg !46
  %109 = getelementptr half, ptr addrspace(1) %90, i64 %89, !dbg !47
  %110 = getelementptr half, ptr addrspace(1) %91, i64 %89, !dbg !47
  %111 = add i32 %5, -64, !dbg !48
  %112 = icmp slt i32 %41, %111, !dbg !43
  %113 = icmp slt i32 %32, %111, !dbg !43
  %114 = icmp slt i32 %33, %111, !dbg !43
  %115 = and i1 %106, %112, !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %116 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 8192), i32 %73, !dbg !44
  %117 = select i1 %115, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %116, ptr addrspace(1) %107, i32 %117) #2, !dbg !44
  %118 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 8192), i32 %76, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %118, ptr addrspace(1) %108, i32 %117) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %119 = and i1 %106, %113, !dbg !42
  %120 = and i1 %106, %114, !dbg !42
  %121 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 20480), i32 %80, !dbg !45
  %122 = select i1 %119, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %121, ptr addrspace(1) %109, i32 %122) #2, !dbg !45
  %123 = getelementptr inbounds nuw i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 20480), i32 %83, !dbg !45
  %124 = select i1 %120, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %123, ptr addrspace(1) %110, i32 %124) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %125 = shl nuw nsw i32 %28, 6
  br i1 %64, label %.lr.ph, label %.._crit_edge_crit_edge, !dbg !42

.._crit_edge_crit_edge:                           ; preds = %11
  %.pre = shl nuw nsw i32 %28, 3, !dbg !49
  br label %._crit_edge, !dbg !42

.lr.ph:                                           ; preds = %11
  %126 = add nsw i32 %5, -96
  %127 = and i32 %125, 960
  %128 = shl nuw nsw i32 %28, 3
  %129 = and i32 %128, 48
  %130 = and i32 %28, 16
  %131 = and i32 %69, 1024
  %132 = or disjoint i32 %127, %129
  %133 = xor i32 %132, %130
  %134 = or disjoint i32 %133, %131
  %135 = xor i32 %134, 32
  %136 = shl nuw nsw i32 %28, 7
  %137 = and i32 %136, 3968
  %138 = shl nuw nsw i32 %34, 4
  %139 = lshr i32 %28, 1
  %140 = and i32 %139, 16
  %141 = xor i32 %138, %140
  %142 = or disjoint i32 %141, %137
  %143 = xor i32 %142, 32
  %144 = xor i32 %142, 64
  %145 = xor i32 %142, 96
  br label %146, !dbg !42

146:                                              ; preds = %.lr.ph, %146
  %147 = phi i32 [ -1, %.lr.ph ], [ %185, %146 ]
  %148 = phi i32 [ 2, %.lr.ph ], [ %323, %146 ]
  %.pn48130 = phi ptr addrspace(1) [ %110, %.lr.ph ], [ %320, %146 ]
  %.pn64129 = phi ptr addrspace(1) [ %109, %.lr.ph ], [ %319, %146 ]
  %.pn16128 = phi ptr addrspace(1) [ %108, %.lr.ph ], [ %318, %146 ]
  %.pn32127 = phi ptr addrspace(1) [ %107, %.lr.ph ], [ %317, %146 ]
  %149 = phi float [ 0.000000e+00, %.lr.ph ], [ %278, %146 ]
  %150 = phi float [ 0.000000e+00, %.lr.ph ], [ %279, %146 ]
  %151 = phi float [ 0.000000e+00, %.lr.ph ], [ %280, %146 ]
  %152 = phi float [ 0.000000e+00, %.lr.ph ], [ %281, %146 ]
  %153 = phi float [ 0.000000e+00, %.lr.ph ], [ %283, %146 ]
  %154 = phi float [ 0.000000e+00, %.lr.ph ], [ %284, %146 ]
  %155 = phi float [ 0.000000e+00, %.lr.ph ], [ %285, %146 ]
  %156 = phi float [ 0.000000e+00, %.lr.ph ], [ %286, %146 ]
  %157 = phi float [ 0.000000e+00, %.lr.ph ], [ %288, %146 ]
  %158 = phi float [ 0.000000e+00, %.lr.ph ], [ %289, %146 ]
  %159 = phi float [ 0.000000e+00, %.lr.ph ], [ %290, %146 ]
  %160 = phi float [ 0.000000e+00, %.lr.ph ], [ %291, %146 ]
  %161 = phi float [ 0.000000e+00, %.lr.ph ], [ %293, %146 ]
  %162 = phi float [ 0.000000e+00, %.lr.ph ], [ %294, %146 ]
  %163 = phi float [ 0.000000e+00, %.lr.ph ], [ %295, %146 ]
  %164 = phi float [ 0.000000e+00, %.lr.ph ], [ %296, %146 ]
  %165 = phi float [ 0.000000e+00, %.lr.ph ], [ %298, %146 ]
  %166 = phi float [ 0.000000e+00, %.lr.ph ], [ %299, %146 ]
  %167 = phi float [ 0.000000e+00, %.lr.ph ], [ %300, %146 ]
  %168 = phi float [ 0.000000e+00, %.lr.ph ], [ %301, %146 ]
  %169 = phi float [ 0.000000e+00, %.lr.ph ], [ %303, %146 ]
  %170 = phi float [ 0.000000e+00, %.lr.ph ], [ %304, %146 ]
  %171 = phi float [ 0.000000e+00, %.lr.ph ], [ %305, %146 ]
  %172 = phi float [ 0.000000e+00, %.lr.ph ], [ %306, %146 ]
  %173 = phi float [ 0.000000e+00, %.lr.ph ], [ %308, %146 ]
  %174 = phi float [ 0.000000e+00, %.lr.ph ], [ %309, %146 ]
  %175 = phi float [ 0.000000e+00, %.lr.ph ], [ %310, %146 ]
  %176 = phi float [ 0.000000e+00, %.lr.ph ], [ %311, %146 ]
  %177 = phi float [ 0.000000e+00, %.lr.ph ], [ %313, %146 ]
  %178 = phi float [ 0.000000e+00, %.lr.ph ], [ %314, %146 ]
  %179 = phi float [ 0.000000e+00, %.lr.ph ], [ %315, %146 ]
  %180 = phi float [ 0.000000e+00, %.lr.ph ], [ %316, %146 ]
  %181 = phi i32 [ 0, %.lr.ph ], [ %341, %146 ]
  %182 = icmp slt i32 %181, %126, !dbg !42
  %183 = add i32 %147, 1, !dbg !42
  %184 = icmp sgt i32 %183, 2, !dbg !42
  %185 = select i1 %184, i32 0, i32 %183, !dbg !42
  tail call void @llvm.nvvm.cp.async.wait.group(i32 4), !dbg !44
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %186 = shl i32 %185, 11, !dbg !44
  %187 = getelementptr half, ptr addrspace(3) @global_smem, i32 %186, !dbg !44
  %188 = getelementptr inbounds nuw i8, ptr addrspace(3) %187, i32 %134, !dbg !44
  %189 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %188), !dbg !44
  %190 = extractvalue { i32, i32, i32, i32 } %189, 0, !dbg !44
  %191 = extractvalue { i32, i32, i32, i32 } %189, 1, !dbg !44
  %192 = extractvalue { i32, i32, i32, i32 } %189, 2, !dbg !44
  %193 = extractvalue { i32, i32, i32, i32 } %189, 3, !dbg !44
  %194 = getelementptr inbounds nuw i8, ptr addrspace(3) %188, i32 2048, !dbg !44
  %195 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) nonnull %194), !dbg !44
  %196 = extractvalue { i32, i32, i32, i32 } %195, 0, !dbg !44
  %197 = extractvalue { i32, i32, i32, i32 } %195, 1, !dbg !44
  %198 = extractvalue { i32, i32, i32, i32 } %195, 2, !dbg !44
  %199 = extractvalue { i32, i32, i32, i32 } %195, 3, !dbg !44
  %200 = getelementptr inbounds nuw i8, ptr addrspace(3) %187, i32 %135, !dbg !44
  %201 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %200), !dbg !44
  %202 = extractvalue { i32, i32, i32, i32 } %201, 0, !dbg !44
  %203 = extractvalue { i32, i32, i32, i32 } %201, 1, !dbg !44
  %204 = extractvalue { i32, i32, i32, i32 } %201, 2, !dbg !44
  %205 = extractvalue { i32, i32, i32, i32 } %201, 3, !dbg !44
  %206 = getelementptr inbounds nuw i8, ptr addrspace(3) %200, i32 2048, !dbg !44
  %207 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) nonnull %206), !dbg !44
  %208 = extractvalue { i32, i32, i32, i32 } %207, 0, !dbg !44
  %209 = extractvalue { i32, i32, i32, i32 } %207, 1, !dbg !44
  %210 = extractvalue { i32, i32, i32, i32 } %207, 2, !dbg !44
  %211 = extractvalue { i32, i32, i32, i32 } %207, 3, !dbg !44
  %212 = getelementptr half, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 12288), i32 %186, !dbg !45
  %213 = getelementptr inbounds nuw i8, ptr addrspace(3) %212, i32 %142, !dbg !45
  %214 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3) %213), !dbg !45
  %215 = extractvalue { i32, i32, i32, i32 } %214, 0, !dbg !45
  %216 = extractvalue { i32, i32, i32, i32 } %214, 1, !dbg !45
  %217 = extractvalue { i32, i32, i32, i32 } %214, 2, !dbg !45
  %218 = extractvalue { i32, i32, i32, i32 } %214, 3, !dbg !45
  %219 = getelementptr inbounds nuw i8, ptr addrspace(3) %212, i32 %143, !dbg !45
  %220 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3) %219), !dbg !45
  %221 = extractvalue { i32, i32, i32, i32 } %220, 0, !dbg !45
  %222 = extractvalue { i32, i32, i32, i32 } %220, 1, !dbg !45
  %223 = extractvalue { i32, i32, i32, i32 } %220, 2, !dbg !45
  %224 = extractvalue { i32, i32, i32, i32 } %220, 3, !dbg !45
  %225 = getelementptr inbounds nuw i8, ptr addrspace(3) %212, i32 %144, !dbg !45
  %226 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3) %225), !dbg !45
  %227 = extractvalue { i32, i32, i32, i32 } %226, 0, !dbg !45
  %228 = extractvalue { i32, i32, i32, i32 } %226, 1, !dbg !45
  %229 = extractvalue { i32, i32, i32, i32 } %226, 2, !dbg !45
  %230 = extractvalue { i32, i32, i32, i32 } %226, 3, !dbg !45
  %231 = getelementptr inbounds nuw i8, ptr addrspace(3) %212, i32 %145, !dbg !45
  %232 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3) %231), !dbg !45
  %233 = extractvalue { i32, i32, i32, i32 } %232, 0, !dbg !45
  %234 = extractvalue { i32, i32, i32, i32 } %232, 1, !dbg !45
  %235 = extractvalue { i32, i32, i32, i32 } %232, 2, !dbg !45
  %236 = extractvalue { i32, i32, i32, i32 } %232, 3, !dbg !45
  %237 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %149, float %150, float %151, float %152, i32 %190, i32 %191, i32 %192, i32 %193, i32 %215, i32 %216) #2, !dbg !50
  %238 = extractvalue { float, float, float, float } %237, 0, !dbg !50
  %239 = extractvalue { float, float, float, float } %237, 1, !dbg !50
  %240 = extractvalue { float, float, float, float } %237, 2, !dbg !50
  %241 = extractvalue { float, float, float, float } %237, 3, !dbg !50
  %242 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %153, float %154, float %155, float %156, i32 %190, i32 %191, i32 %192, i32 %193, i32 %221, i32 %222) #2, !dbg !50
  %243 = extractvalue { float, float, float, float } %242, 0, !dbg !50
  %244 = extractvalue { float, float, float, float } %242, 1, !dbg !50
  %245 = extractvalue { float, float, float, float } %242, 2, !dbg !50
  %246 = extractvalue { float, float, float, float } %242, 3, !dbg !50
  %247 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %157, float %158, float %159, float %160, i32 %190, i32 %191, i32 %192, i32 %193, i32 %227, i32 %228) #2, !dbg !50
  %248 = extractvalue { float, float, float, float } %247, 0, !dbg !50
  %249 = extractvalue { float, float, float, float } %247, 1, !dbg !50
  %250 = extractvalue { float, float, float, float } %247, 2, !dbg !50
  %251 = extractvalue { float, float, float, float } %247, 3, !dbg !50
  %252 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %161, float %162, float %163, float %164, i32 %190, i32 %191, i32 %192, i32 %193, i32 %233, i32 %234) #2, !dbg !50
  %253 = extractvalue { float, float, float, float } %252, 0, !dbg !50
  %254 = extractvalue { float, float, float, float } %252, 1, !dbg !50
  %255 = extractvalue { float, float, float, float } %252, 2, !dbg !50
  %256 = extractvalue { float, float, float, float } %252, 3, !dbg !50
  %257 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %165, float %166, float %167, float %168, i32 %196, i32 %197, i32 %198, i32 %199, i32 %215, i32 %216) #2, !dbg !50
  %258 = extractvalue { float, float, float, float } %257, 0, !dbg !50
  %259 = extractvalue { float, float, float, float } %257, 1, !dbg !50
  %260 = extractvalue { float, float, float, float } %257, 2, !dbg !50
  %261 = extractvalue { float, float, float, float } %257, 3, !dbg !50
  %262 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %169, float %170, float %171, float %172, i32 %196, i32 %197, i32 %198, i32 %199, i32 %221, i32 %222) #2, !dbg !50
  %263 = extractvalue { float, float, float, float } %262, 0, !dbg !50
  %264 = extractvalue { float, float, float, float } %262, 1, !dbg !50
  %265 = extractvalue { float, float, float, float } %262, 2, !dbg !50
  %266 = extractvalue { float, float, float, float } %262, 3, !dbg !50
  %267 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %173, float %174, float %175, float %176, i32 %196, i32 %197, i32 %198, i32 %199, i32 %227, i32 %228) #2, !dbg !50
  %268 = extractvalue { float, float, float, float } %267, 0, !dbg !50
  %269 = extractvalue { float, float, float, float } %267, 1, !dbg !50
  %270 = extractvalue { float, float, float, float } %267, 2, !dbg !50
  %271 = extractvalue { float, float, float, float } %267, 3, !dbg !50
  %272 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %177, float %178, float %179, float %180, i32 %196, i32 %197, i32 %198, i32 %199, i32 %233, i32 %234) #2, !dbg !50
  %273 = extractvalue { float, float, float, float } %272, 0, !dbg !50
  %274 = extractvalue { float, float, float, float } %272, 1, !dbg !50
  %275 = extractvalue { float, float, float, float } %272, 2, !dbg !50
  %276 = extractvalue { float, float, float, float } %272, 3, !dbg !50
  %277 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %238, float %239, float %240, float %241, i32 %202, i32 %203, i32 %204, i32 %205, i32 %217, i32 %218) #2, !dbg !50
  %278 = extractvalue { float, float, float, float } %277, 0, !dbg !50
  %279 = extractvalue { float, float, float, float } %277, 1, !dbg !50
  %280 = extractvalue { float, float, float, float } %277, 2, !dbg !50
  %281 = extractvalue { float, float, float, float } %277, 3, !dbg !50
  %282 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %243, float %244, float %245, float %246, i32 %202, i32 %203, i32 %204, i32 %205, i32 %223, i32 %224) #2, !dbg !50
  %283 = extractvalue { float, float, float, float } %282, 0, !dbg !50
  %284 = extractvalue { float, float, float, float } %282, 1, !dbg !50
  %285 = extractvalue { float, float, float, float } %282, 2, !dbg !50
  %286 = extractvalue { float, float, float, float } %282, 3, !dbg !50
  %287 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %248, float %249, float %250, float %251, i32 %202, i32 %203, i32 %204, i32 %205, i32 %229, i32 %230) #2, !dbg !50
  %288 = extractvalue { float, float, float, float } %287, 0, !dbg !50
  %289 = extractvalue { float, float, float, float } %287, 1, !dbg !50
  %290 = extractvalue { float, float, float, float } %287, 2, !dbg !50
  %291 = extractvalue { float, float, float, float } %287, 3, !dbg !50
  %292 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %253, float %254, float %255, float %256, i32 %202, i32 %203, i32 %204, i32 %205, i32 %235, i32 %236) #2, !dbg !50
  %293 = extractvalue { float, float, float, float } %292, 0, !dbg !50
  %294 = extractvalue { float, float, float, float } %292, 1, !dbg !50
  %295 = extractvalue { float, float, float, float } %292, 2, !dbg !50
  %296 = extractvalue { float, float, float, float } %292, 3, !dbg !50
  %297 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %258, float %259, float %260, float %261, i32 %208, i32 %209, i32 %210, i32 %211, i32 %217, i32 %218) #2, !dbg !50
  %298 = extractvalue { float, float, float, float } %297, 0, !dbg !50
  %299 = extractvalue { float, float, float, float } %297, 1, !dbg !50
  %300 = extractvalue { float, float, float, float } %297, 2, !dbg !50
  %301 = extractvalue { float, float, float, float } %297, 3, !dbg !50
  %302 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %263, float %264, float %265, float %266, i32 %208, i32 %209, i32 %210, i32 %211, i32 %223, i32 %224) #2, !dbg !50
  %303 = extractvalue { float, float, float, float } %302, 0, !dbg !50
  %304 = extractvalue { float, float, float, float } %302, 1, !dbg !50
  %305 = extractvalue { float, float, float, float } %302, 2, !dbg !50
  %306 = extractvalue { float, float, float, float } %302, 3, !dbg !50
  %307 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %268, float %269, float %270, float %271, i32 %208, i32 %209, i32 %210, i32 %211, i32 %229, i32 %230) #2, !dbg !50
  %308 = extractvalue { float, float, float, float } %307, 0, !dbg !50
  %309 = extractvalue { float, float, float, float } %307, 1, !dbg !50
  %310 = extractvalue { float, float, float, float } %307, 2, !dbg !50
  %311 = extractvalue { float, float, float, float } %307, 3, !dbg !50
  %312 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %273, float %274, float %275, float %276, i32 %208, i32 %209, i32 %210, i32 %211, i32 %235, i32 %236) #2, !dbg !50
  %313 = extractvalue { float, float, float, float } %312, 0, !dbg !50
  %314 = extractvalue { float, float, float, float } %312, 1, !dbg !50
  %315 = extractvalue { float, float, float, float } %312, 2, !dbg !50
  %316 = extractvalue { float, float, float, float } %312, 3, !dbg !50
  %317 = getelementptr i8, ptr addrspace(1) %.pn32127, i64 64, !dbg !46
  %318 = getelementptr i8, ptr addrspace(1) %.pn16128, i64 64, !dbg !46
  %319 = getelementptr half, ptr addrspace(1) %.pn64129, i64 %89, !dbg !47
  %320 = getelementptr half, ptr addrspace(1) %.pn48130, i64 %89, !dbg !47
  %321 = add i32 %148, 1, !dbg !42
  %322 = icmp sgt i32 %321, 2, !dbg !42
  %323 = select i1 %322, i32 0, i32 %321, !dbg !42
  %324 = sub i32 %126, %181, !dbg !48
  %325 = icmp slt i32 %41, %324, !dbg !43
  %326 = icmp slt i32 %32, %324, !dbg !43
  %327 = icmp slt i32 %33, %324, !dbg !43
  %328 = shl i32 %323, 11, !dbg !44
  %329 = getelementptr half, ptr addrspace(3) @global_smem, i32 %328, !dbg !44
  %330 = and i1 %182, %325, !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !44
  %331 = getelementptr inbounds nuw i8, ptr addrspace(3) %329, i32 %73, !dbg !44
  %332 = select i1 %330, i32 16, i32 0, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %331, ptr addrspace(1) %317, i32 %332) #2, !dbg !44
  %333 = getelementptr inbounds nuw i8, ptr addrspace(3) %329, i32 %76, !dbg !44
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %333, ptr addrspace(1) %318, i32 %332) #2, !dbg !44
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !44
  %334 = getelementptr half, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 12288), i32 %328, !dbg !45
  %335 = and i1 %182, %326, !dbg !42
  %336 = and i1 %182, %327, !dbg !42
  %337 = getelementptr inbounds nuw i8, ptr addrspace(3) %334, i32 %80, !dbg !45
  %338 = select i1 %335, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %337, ptr addrspace(1) %319, i32 %338) #2, !dbg !45
  %339 = getelementptr inbounds nuw i8, ptr addrspace(3) %334, i32 %83, !dbg !45
  %340 = select i1 %336, i32 16, i32 0, !dbg !45
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %339, ptr addrspace(1) %320, i32 %340) #2, !dbg !45
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !45
  %341 = add i32 %181, 32, !dbg !42
  %342 = icmp slt i32 %341, %5, !dbg !42
  br i1 %342, label %146, label %._crit_edge.loopexit, !dbg !42

._crit_edge.loopexit:                             ; preds = %146
  %343 = insertelement <32 x float> poison, float %278, i64 0, !dbg !51
  %344 = insertelement <32 x float> %343, float %279, i64 1, !dbg !51
  %345 = insertelement <32 x float> %344, float %298, i64 2, !dbg !51
  %346 = insertelement <32 x float> %345, float %299, i64 3, !dbg !51
  %347 = insertelement <32 x float> %346, float %280, i64 4, !dbg !51
  %348 = insertelement <32 x float> %347, float %281, i64 5, !dbg !51
  %349 = insertelement <32 x float> %348, float %300, i64 6, !dbg !51
  %350 = insertelement <32 x float> %349, float %301, i64 7, !dbg !51
  %351 = insertelement <32 x float> %350, float %283, i64 8, !dbg !51
  %352 = insertelement <32 x float> %351, float %284, i64 9, !dbg !51
  %353 = insertelement <32 x float> %352, float %303, i64 10, !dbg !51
  %354 = insertelement <32 x float> %353, float %304, i64 11, !dbg !51
  %355 = insertelement <32 x float> %354, float %285, i64 12, !dbg !51
  %356 = insertelement <32 x float> %355, float %286, i64 13, !dbg !51
  %357 = insertelement <32 x float> %356, float %305, i64 14, !dbg !51
  %358 = insertelement <32 x float> %357, float %306, i64 15, !dbg !51
  %359 = insertelement <32 x float> %358, float %288, i64 16, !dbg !51
  %360 = insertelement <32 x float> %359, float %289, i64 17, !dbg !51
  %361 = insertelement <32 x float> %360, float %308, i64 18, !dbg !51
  %362 = insertelement <32 x float> %361, float %309, i64 19, !dbg !51
  %363 = insertelement <32 x float> %362, float %290, i64 20, !dbg !51
  %364 = insertelement <32 x float> %363, float %291, i64 21, !dbg !51
  %365 = insertelement <32 x float> %364, float %310, i64 22, !dbg !51
  %366 = insertelement <32 x float> %365, float %311, i64 23, !dbg !51
  %367 = insertelement <32 x float> %366, float %293, i64 24, !dbg !51
  %368 = insertelement <32 x float> %367, float %294, i64 25, !dbg !51
  %369 = insertelement <32 x float> %368, float %313, i64 26, !dbg !51
  %370 = insertelement <32 x float> %369, float %314, i64 27, !dbg !51
  %371 = insertelement <32 x float> %370, float %295, i64 28, !dbg !51
  %372 = insertelement <32 x float> %371, float %296, i64 29, !dbg !51
  %373 = insertelement <32 x float> %372, float %315, i64 30, !dbg !51
  %374 = insertelement <32 x float> %373, float %316, i64 31, !dbg !51
  %375 = fptrunc <32 x float> %374 to <32 x half>, !dbg !51
  br label %._crit_edge, !dbg !28

._crit_edge:                                      ; preds = %._crit_edge.loopexit, %.._crit_edge_crit_edge
  %.pre-phi = phi i32 [ %.pre, %.._crit_edge_crit_edge ], [ %128, %._crit_edge.loopexit ], !dbg !49
  %376 = phi <32 x half> [ zeroinitializer, %.._crit_edge_crit_edge ], [ %375, %._crit_edge.loopexit ], !dbg !52
  %377 = or disjoint i32 %27, %32, !dbg !28
  %378 = or disjoint i32 %377, 48, !dbg !29
  %379 = or disjoint i32 %377, 32, !dbg !29
  %380 = or disjoint i32 %27, %33, !dbg !29
  tail call void @llvm.nvvm.cp.async.wait.group(i32 0), !dbg !42
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !42
  %381 = mul i32 %377, %8, !dbg !53
  %382 = mul i32 %380, %8, !dbg !53
  %383 = mul i32 %8, %379, !dbg !53
  %384 = mul i32 %8, %378, !dbg !53
  %385 = sext i32 %381 to i64, !dbg !54
  %386 = getelementptr half, ptr addrspace(1) %2, i64 %385, !dbg !54
  %387 = sext i32 %382 to i64, !dbg !54
  %388 = getelementptr half, ptr addrspace(1) %2, i64 %387, !dbg !54
  %389 = sext i32 %383 to i64, !dbg !54
  %390 = getelementptr half, ptr addrspace(1) %2, i64 %389, !dbg !54
  %391 = sext i32 %384 to i64, !dbg !54
  %392 = getelementptr half, ptr addrspace(1) %2, i64 %391, !dbg !54
  %393 = sext i32 %39 to i64, !dbg !55
  %394 = getelementptr half, ptr addrspace(1) %386, i64 %393, !dbg !55
  %395 = getelementptr half, ptr addrspace(1) %388, i64 %393, !dbg !55
  %396 = getelementptr half, ptr addrspace(1) %390, i64 %393, !dbg !55
  %397 = getelementptr half, ptr addrspace(1) %392, i64 %393, !dbg !55
  %398 = icmp slt i32 %377, %3, !dbg !56
  %399 = icmp slt i32 %380, %3, !dbg !56
  %400 = icmp slt i32 %379, %3, !dbg !56
  %401 = icmp slt i32 %378, %3, !dbg !56
  %402 = icmp slt i32 %39, %4, !dbg !57
  %403 = and i1 %398, %402, !dbg !58
  %404 = and i1 %399, %402, !dbg !58
  %405 = and i1 %400, %402, !dbg !58
  %406 = and i1 %401, %402, !dbg !58
  %407 = shl nuw nsw i32 %40, 11, !dbg !49
  %408 = and i32 %.pre-phi, 696, !dbg !49
  %409 = and i32 %28, 8, !dbg !49
  %410 = icmp eq i32 %409, 0, !dbg !49
  %411 = select i1 %410, i32 0, i32 1088, !dbg !49
  %412 = and i32 %71, 64, !dbg !49
  %413 = or disjoint i32 %411, %408, !dbg !49
  %414 = xor i32 %413, %412, !dbg !49
  %415 = or disjoint i32 %414, %407, !dbg !49
  %416 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %415, !dbg !49
  %417 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>, !dbg !49
  store <4 x half> %417, ptr addrspace(3) %416, align 8, !dbg !49
  %418 = getelementptr inbounds nuw i8, ptr addrspace(3) %416, i32 256, !dbg !49
  %419 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 4, i32 5, i32 6, i32 7>, !dbg !49
  store <4 x half> %419, ptr addrspace(3) %418, align 8, !dbg !49
  %420 = xor i32 %415, 8, !dbg !49
  %421 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %420, !dbg !49
  %422 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 8, i32 9, i32 10, i32 11>, !dbg !49
  store <4 x half> %422, ptr addrspace(3) %421, align 8, !dbg !49
  %423 = getelementptr inbounds nuw i8, ptr addrspace(3) %421, i32 256, !dbg !49
  %424 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 12, i32 13, i32 14, i32 15>, !dbg !49
  store <4 x half> %424, ptr addrspace(3) %423, align 8, !dbg !49
  %425 = xor i32 %415, 16, !dbg !49
  %426 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %425, !dbg !49
  %427 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 16, i32 17, i32 18, i32 19>, !dbg !49
  store <4 x half> %427, ptr addrspace(3) %426, align 8, !dbg !49
  %428 = getelementptr inbounds nuw i8, ptr addrspace(3) %426, i32 256, !dbg !49
  %429 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 20, i32 21, i32 22, i32 23>, !dbg !49
  store <4 x half> %429, ptr addrspace(3) %428, align 8, !dbg !49
  %430 = xor i32 %415, 24, !dbg !49
  %431 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %430, !dbg !49
  %432 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 24, i32 25, i32 26, i32 27>, !dbg !49
  store <4 x half> %432, ptr addrspace(3) %431, align 8, !dbg !49
  %433 = getelementptr inbounds nuw i8, ptr addrspace(3) %431, i32 256, !dbg !49
  %434 = shufflevector <32 x half> %376, <32 x half> poison, <4 x i32> <i32 28, i32 29, i32 30, i32 31>, !dbg !49
  store <4 x half> %434, ptr addrspace(3) %433, align 8, !dbg !49
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !49
  %435 = and i32 %125, 1088, !dbg !49
  %436 = shl nuw nsw i32 %28, 2, !dbg !49
  %437 = and i32 %436, 504, !dbg !49
  %438 = xor i32 %435, %437, !dbg !49
  %439 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %438, !dbg !49
  %440 = load <2 x i32>, ptr addrspace(3) %439, align 8, !dbg !49
  %441 = getelementptr inbounds nuw i8, ptr addrspace(3) %439, i32 512, !dbg !49
  %442 = load <2 x i32>, ptr addrspace(3) %441, align 8, !dbg !49
  %443 = xor i32 %438, 2056, !dbg !49
  %444 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %443, !dbg !49
  %445 = load <2 x i32>, ptr addrspace(3) %444, align 8, !dbg !49
  %446 = getelementptr inbounds nuw i8, ptr addrspace(3) %444, i32 512, !dbg !49
  %447 = load <2 x i32>, ptr addrspace(3) %446, align 8, !dbg !49
  %448 = xor i32 %438, 4112, !dbg !49
  %449 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %448, !dbg !49
  %450 = load <2 x i32>, ptr addrspace(3) %449, align 8, !dbg !49
  %451 = getelementptr inbounds nuw i8, ptr addrspace(3) %449, i32 512, !dbg !49
  %452 = load <2 x i32>, ptr addrspace(3) %451, align 8, !dbg !49
  %453 = xor i32 %438, 6168, !dbg !49
  %454 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %453, !dbg !49
  %455 = load <2 x i32>, ptr addrspace(3) %454, align 8, !dbg !49
  %456 = getelementptr inbounds nuw i8, ptr addrspace(3) %454, i32 512, !dbg !49
  %457 = load <2 x i32>, ptr addrspace(3) %456, align 8, !dbg !49
  %.uncasted.extract = extractelement <2 x i32> %440, i64 0, !dbg !49
  %.uncasted.extract97 = extractelement <2 x i32> %445, i64 0, !dbg !49
  %.uncasted.extract99 = extractelement <2 x i32> %450, i64 0, !dbg !49
  %.uncasted.extract101 = extractelement <2 x i32> %455, i64 0, !dbg !49
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %.uncasted.extract, i32 %.uncasted.extract97, i32 %.uncasted.extract99, i32 %.uncasted.extract101, ptr addrspace(1) %394, i1 %403) #2, !dbg !49
  %.uncasted.extract103 = extractelement <2 x i32> %442, i64 0, !dbg !49
  %.uncasted.extract105 = extractelement <2 x i32> %447, i64 0, !dbg !49
  %.uncasted.extract107 = extractelement <2 x i32> %452, i64 0, !dbg !49
  %.uncasted.extract109 = extractelement <2 x i32> %457, i64 0, !dbg !49
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %.uncasted.extract103, i32 %.uncasted.extract105, i32 %.uncasted.extract107, i32 %.uncasted.extract109, ptr addrspace(1) %395, i1 %404) #2, !dbg !49
  %.uncasted.extract111 = extractelement <2 x i32> %440, i64 1, !dbg !49
  %.uncasted.extract113 = extractelement <2 x i32> %445, i64 1, !dbg !49
  %.uncasted.extract115 = extractelement <2 x i32> %450, i64 1, !dbg !49
  %.uncasted.extract117 = extractelement <2 x i32> %455, i64 1, !dbg !49
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %.uncasted.extract111, i32 %.uncasted.extract113, i32 %.uncasted.extract115, i32 %.uncasted.extract117, ptr addrspace(1) %396, i1 %405) #2, !dbg !49
  %.uncasted.extract119 = extractelement <2 x i32> %442, i64 1, !dbg !49
  %.uncasted.extract121 = extractelement <2 x i32> %447, i64 1, !dbg !49
  %.uncasted.extract123 = extractelement <2 x i32> %452, i64 1, !dbg !49
  %.uncasted.extract125 = extractelement <2 x i32> %457, i64 1, !dbg !49
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %.uncasted.extract119, i32 %.uncasted.extract121, i32 %.uncasted.extract123, i32 %.uncasted.extract125, ptr addrspace(1) %397, i1 %406) #2, !dbg !49
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

; Function Attrs: nocallback nofree nounwind memory(argmem: read)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3) readonly captures(none)) #4

attributes #0 = { nounwind "nvvm.reqntid"="128" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { nocallback nofree nounwind memory(argmem: read) }

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
!49 = !DILocation(line: 125, column: 19, scope: !4)
!50 = !DILocation(line: 120, column: 27, scope: !4)
!51 = !DILocation(line: 125, column: 26, scope: !4)
!52 = !DILocation(line: 115, column: 23, scope: !4)
!53 = !DILocation(line: 124, column: 35, scope: !4)
!54 = !DILocation(line: 124, column: 19, scope: !4)
!55 = !DILocation(line: 124, column: 50, scope: !4)
!56 = !DILocation(line: 125, column: 73, scope: !4)
!57 = !DILocation(line: 125, column: 95, scope: !4)
!58 = !DILocation(line: 125, column: 79, scope: !4)
!59 = !DILocation(line: 125, column: 4, scope: !4)

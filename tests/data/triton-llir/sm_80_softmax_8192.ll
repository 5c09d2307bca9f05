; Triton 3.6.0's llir of tests/triton/kernels.py (sm_80_softmax_8192; the Triton suite, tests/triton/compile_suite.py), with the NVPTX target triple added (Triton's llir has none).
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

; Function Attrs: nounwind
define ptx_kernel void @softmax_rows(ptr addrspace(1) %0, ptr addrspace(1) %1, i32 %2, i32 %3, i32 %4, i32 %5, ptr addrspace(1) readnone captures(none) %6, ptr addrspace(1) readnone captures(none) %7) local_unnamed_addr #0 !dbg !4 {
  %9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7
  %10 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x(), !dbg !8
  %11 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !9
  %12 = and i32 %11, 255, !dbg !9
  %13 = shl nuw nsw i32 %12, 3, !dbg !9
  %14 = or disjoint i32 %13, 2048, !dbg !9
  %15 = or disjoint i32 %13, 4096, !dbg !9
  %16 = or disjoint i32 %13, 6144, !dbg !9
  %17 = icmp slt i32 %13, %5, !dbg !10
  %18 = icmp slt i32 %14, %5, !dbg !10
  %19 = icmp slt i32 %15, %5, !dbg !10
  %20 = icmp slt i32 %16, %5, !dbg !10
  %21 = icmp slt i32 %9, %4, !dbg !11
  %22 = mul i32 %2, %9, !dbg !12
  %23 = sext i32 %22 to i64, !dbg !13
  %24 = getelementptr half, ptr addrspace(1) %0, i64 %23, !dbg !13
  %25 = zext nneg i32 %13 to i64, !dbg !14
  %26 = getelementptr half, ptr addrspace(1) %24, i64 %25, !dbg !14
  %27 = zext nneg i32 %14 to i64, !dbg !14
  %28 = getelementptr half, ptr addrspace(1) %24, i64 %27, !dbg !14
  %29 = zext nneg i32 %15 to i64, !dbg !14
  %30 = getelementptr half, ptr addrspace(1) %24, i64 %29, !dbg !14
  %31 = zext nneg i32 %16 to i64, !dbg !14
  %32 = getelementptr half, ptr addrspace(1) %24, i64 %31, !dbg !14
  %33 = and i1 %21, %17, !dbg !11
  %34 = and i1 %21, %18, !dbg !11
  %35 = and i1 %21, %19, !dbg !11
  %36 = and i1 %21, %20, !dbg !11
  %37 = shl nuw nsw i32 %12, 4, !dbg !15
  %38 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %37, !dbg !15
  %39 = select i1 %33, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %38, ptr addrspace(1) %26, i32 %39) #2, !dbg !15
  %40 = or disjoint i32 %37, 4096, !dbg !15
  %41 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %40, !dbg !15
  %42 = select i1 %34, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %41, ptr addrspace(1) %28, i32 %42) #2, !dbg !15
  %43 = or disjoint i32 %37, 8192, !dbg !15
  %44 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %43, !dbg !15
  %45 = select i1 %35, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %44, ptr addrspace(1) %30, i32 %45) #2, !dbg !15
  %46 = or disjoint i32 %37, 12288, !dbg !15
  %47 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %46, !dbg !15
  %48 = select i1 %36, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %47, ptr addrspace(1) %32, i32 %48) #2, !dbg !15
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !15
  br i1 %21, label %.lr.ph, label %._crit_edge, !dbg !11

.lr.ph:                                           ; preds = %8
  %49 = lshr i32 %12, 5, !dbg !9
  %50 = and i32 %11, 31, !dbg !9
  %51 = sub nsw i32 %4, %10
  %52 = icmp eq i32 %50, 0
  %53 = getelementptr float, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %49
  %54 = icmp samesign ult i32 %12, 8
  %55 = getelementptr float, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), i32 %12
  %56 = and i32 %11, 7
  %57 = icmp eq i32 %56, 0
  %58 = and i1 %54, %57
  %59 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %37
  %60 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 2
  %61 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 4
  %62 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 6
  %63 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 8
  %64 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 10
  %65 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 12
  %66 = getelementptr inbounds nuw i8, ptr addrspace(3) %59, i32 14
  %67 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %40
  %68 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 2
  %69 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 4
  %70 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 6
  %71 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 8
  %72 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 10
  %73 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 12
  %74 = getelementptr inbounds nuw i8, ptr addrspace(3) %67, i32 14
  %75 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %43
  %76 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 2
  %77 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 4
  %78 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 6
  %79 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 8
  %80 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 10
  %81 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 12
  %82 = getelementptr inbounds nuw i8, ptr addrspace(3) %75, i32 14
  %83 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %46
  %84 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 2
  %85 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 4
  %86 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 6
  %87 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 8
  %88 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 10
  %89 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 12
  %90 = getelementptr inbounds nuw i8, ptr addrspace(3) %83, i32 14
  br label %91, !dbg !11

91:                                               ; preds = %.lr.ph, %91
  %92 = phi i32 [ %9, %.lr.ph ], [ %523, %91 ]
  %93 = icmp slt i32 %92, %51, !dbg !11
  tail call void @llvm.nvvm.cp.async.wait.group(i32 0), !dbg !15
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !15
  %94 = load half, ptr addrspace(3) %59, align 16, !dbg !15
  %95 = load half, ptr addrspace(3) %60, align 2, !dbg !15
  %96 = load half, ptr addrspace(3) %61, align 4, !dbg !15
  %97 = load half, ptr addrspace(3) %62, align 2, !dbg !15
  %98 = load half, ptr addrspace(3) %63, align 8, !dbg !15
  %99 = load half, ptr addrspace(3) %64, align 2, !dbg !15
  %100 = load half, ptr addrspace(3) %65, align 4, !dbg !15
  %101 = load half, ptr addrspace(3) %66, align 2, !dbg !15
  %102 = load half, ptr addrspace(3) %67, align 16, !dbg !15
  %103 = load half, ptr addrspace(3) %68, align 2, !dbg !15
  %104 = load half, ptr addrspace(3) %69, align 4, !dbg !15
  %105 = load half, ptr addrspace(3) %70, align 2, !dbg !15
  %106 = load half, ptr addrspace(3) %71, align 8, !dbg !15
  %107 = load half, ptr addrspace(3) %72, align 2, !dbg !15
  %108 = load half, ptr addrspace(3) %73, align 4, !dbg !15
  %109 = load half, ptr addrspace(3) %74, align 2, !dbg !15
  %110 = load half, ptr addrspace(3) %75, align 16, !dbg !15
  %111 = load half, ptr addrspace(3) %76, align 2, !dbg !15
  %112 = load half, ptr addrspace(3) %77, align 4, !dbg !15
  %113 = load half, ptr addrspace(3) %78, align 2, !dbg !15
  %114 = load half, ptr addrspace(3) %79, align 8, !dbg !15
  %115 = load half, ptr addrspace(3) %80, align 2, !dbg !15
  %116 = load half, ptr addrspace(3) %81, align 4, !dbg !15
  %117 = load half, ptr addrspace(3) %82, align 2, !dbg !15
  %118 = load half, ptr addrspace(3) %83, align 16, !dbg !15
  %119 = load half, ptr addrspace(3) %84, align 2, !dbg !15
  %120 = load half, ptr addrspace(3) %85, align 4, !dbg !15
  %121 = load half, ptr addrspace(3) %86, align 2, !dbg !15
  %122 = load half, ptr addrspace(3) %87, align 8, !dbg !15
  %123 = load half, ptr addrspace(3) %88, align 2, !dbg !15
  %124 = load half, ptr addrspace(3) %89, align 4, !dbg !15
  %125 = load half, ptr addrspace(3) %90, align 2, !dbg !15
  %126 = fpext half %94 to float, !dbg !16
  %127 = select i1 %17, float %126, float 0xFFF0000000000000, !dbg !15
  %128 = fpext half %95 to float, !dbg !16
  %129 = select i1 %17, float %128, float 0xFFF0000000000000, !dbg !15
  %130 = fpext half %96 to float, !dbg !16
  %131 = select i1 %17, float %130, float 0xFFF0000000000000, !dbg !15
  %132 = fpext half %97 to float, !dbg !16
  %133 = select i1 %17, float %132, float 0xFFF0000000000000, !dbg !15
  %134 = fpext half %98 to float, !dbg !16
  %135 = select i1 %17, float %134, float 0xFFF0000000000000, !dbg !15
  %136 = fpext half %99 to float, !dbg !16
  %137 = select i1 %17, float %136, float 0xFFF0000000000000, !dbg !15
  %138 = fpext half %100 to float, !dbg !16
  %139 = select i1 %17, float %138, float 0xFFF0000000000000, !dbg !15
  %140 = fpext half %101 to float, !dbg !16
  %141 = select i1 %17, float %140, float 0xFFF0000000000000, !dbg !15
  %142 = fpext half %102 to float, !dbg !16
  %143 = select i1 %18, float %142, float 0xFFF0000000000000, !dbg !15
  %144 = fpext half %103 to float, !dbg !16
  %145 = select i1 %18, float %144, float 0xFFF0000000000000, !dbg !15
  %146 = fpext half %104 to float, !dbg !16
  %147 = select i1 %18, float %146, float 0xFFF0000000000000, !dbg !15
  %148 = fpext half %105 to float, !dbg !16
  %149 = select i1 %18, float %148, float 0xFFF0000000000000, !dbg !15
  %150 = fpext half %106 to float, !dbg !16
  %151 = select i1 %18, float %150, float 0xFFF0000000000000, !dbg !15
  %152 = fpext half %107 to float, !dbg !16
  %153 = select i1 %18, float %152, float 0xFFF0000000000000, !dbg !15
  %154 = fpext half %108 to float, !dbg !16
  %155 = select i1 %18, float %154, float 0xFFF0000000000000, !dbg !15
  %156 = fpext half %109 to float, !dbg !16
  %157 = select i1 %18, float %156, float 0xFFF0000000000000, !dbg !15
  %158 = fpext half %110 to float, !dbg !16
  %159 = select i1 %19, float %158, float 0xFFF0000000000000, !dbg !15
  %160 = fpext half %111 to float, !dbg !16
  %161 = select i1 %19, float %160, float 0xFFF0000000000000, !dbg !15
  %162 = fpext half %112 to float, !dbg !16
  %163 = select i1 %19, float %162, float 0xFFF0000000000000, !dbg !15
  %164 = fpext half %113 to float, !dbg !16
  %165 = select i1 %19, float %164, float 0xFFF0000000000000, !dbg !15
  %166 = fpext half %114 to float, !dbg !16
  %167 = select i1 %19, float %166, float 0xFFF0000000000000, !dbg !15
  %168 = fpext half %115 to float, !dbg !16
  %169 = select i1 %19, float %168, float 0xFFF0000000000000, !dbg !15
  %170 = fpext half %116 to float, !dbg !16
  %171 = select i1 %19, float %170, float 0xFFF0000000000000, !dbg !15
  %172 = fpext half %117 to float, !dbg !16
  %173 = select i1 %19, float %172, float 0xFFF0000000000000, !dbg !15
  %174 = fpext half %118 to float, !dbg !16
  %175 = select i1 %20, float %174, float 0xFFF0000000000000, !dbg !15
  %176 = fpext half %119 to float, !dbg !16
  %177 = select i1 %20, float %176, float 0xFFF0000000000000, !dbg !15
  %178 = fpext half %120 to float, !dbg !16
  %179 = select i1 %20, float %178, float 0xFFF0000000000000, !dbg !15
  %180 = fpext half %121 to float, !dbg !16
  %181 = select i1 %20, float %180, float 0xFFF0000000000000, !dbg !15
  %182 = fpext half %122 to float, !dbg !16
  %183 = select i1 %20, float %182, float 0xFFF0000000000000, !dbg !15
  %184 = fpext half %123 to float, !dbg !16
  %185 = select i1 %20, float %184, float 0xFFF0000000000000, !dbg !15
  %186 = fpext half %124 to float, !dbg !16
  %187 = select i1 %20, float %186, float 0xFFF0000000000000, !dbg !15
  %188 = fpext half %125 to float, !dbg !16
  %189 = select i1 %20, float %188, float 0xFFF0000000000000, !dbg !15
  %190 = tail call float @llvm.maxnum.f32(float %127, float %129), !dbg !17
  %191 = tail call float @llvm.maxnum.f32(float %190, float %131), !dbg !17
  %192 = tail call float @llvm.maxnum.f32(float %191, float %133), !dbg !17
  %193 = tail call float @llvm.maxnum.f32(float %192, float %135), !dbg !17
  %194 = tail call float @llvm.maxnum.f32(float %193, float %137), !dbg !17
  %195 = tail call float @llvm.maxnum.f32(float %194, float %139), !dbg !17
  %196 = tail call float @llvm.maxnum.f32(float %195, float %141), !dbg !17
  %197 = tail call float @llvm.maxnum.f32(float %196, float %143), !dbg !17
  %198 = tail call float @llvm.maxnum.f32(float %197, float %145), !dbg !17
  %199 = tail call float @llvm.maxnum.f32(float %198, float %147), !dbg !17
  %200 = tail call float @llvm.maxnum.f32(float %199, float %149), !dbg !17
  %201 = tail call float @llvm.maxnum.f32(float %200, float %151), !dbg !17
  %202 = tail call float @llvm.maxnum.f32(float %201, float %153), !dbg !17
  %203 = tail call float @llvm.maxnum.f32(float %202, float %155), !dbg !17
  %204 = tail call float @llvm.maxnum.f32(float %203, float %157), !dbg !17
  %205 = tail call float @llvm.maxnum.f32(float %204, float %159), !dbg !17
  %206 = tail call float @llvm.maxnum.f32(float %205, float %161), !dbg !17
  %207 = tail call float @llvm.maxnum.f32(float %206, float %163), !dbg !17
  %208 = tail call float @llvm.maxnum.f32(float %207, float %165), !dbg !17
  %209 = tail call float @llvm.maxnum.f32(float %208, float %167), !dbg !17
  %210 = tail call float @llvm.maxnum.f32(float %209, float %169), !dbg !17
  %211 = tail call float @llvm.maxnum.f32(float %210, float %171), !dbg !17
  %212 = tail call float @llvm.maxnum.f32(float %211, float %173), !dbg !17
  %213 = tail call float @llvm.maxnum.f32(float %212, float %175), !dbg !17
  %214 = tail call float @llvm.maxnum.f32(float %213, float %177), !dbg !17
  %215 = tail call float @llvm.maxnum.f32(float %214, float %179), !dbg !17
  %216 = tail call float @llvm.maxnum.f32(float %215, float %181), !dbg !17
  %217 = tail call float @llvm.maxnum.f32(float %216, float %183), !dbg !17
  %218 = tail call float @llvm.maxnum.f32(float %217, float %185), !dbg !17
  %219 = tail call float @llvm.maxnum.f32(float %218, float %187), !dbg !17
  %220 = tail call float @llvm.maxnum.f32(float %219, float %189), !dbg !17
  %221 = bitcast float %220 to i32, !dbg !20
  %222 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %221, i32 16, i32 31), !dbg !20
  %223 = bitcast i32 %222 to float, !dbg !20
  %224 = tail call float @llvm.maxnum.f32(float %220, float %223), !dbg !17
  %225 = bitcast float %224 to i32, !dbg !20
  %226 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %225, i32 8, i32 31), !dbg !20
  %227 = bitcast i32 %226 to float, !dbg !20
  %228 = tail call float @llvm.maxnum.f32(float %224, float %227), !dbg !17
  %229 = bitcast float %228 to i32, !dbg !20
  %230 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %229, i32 4, i32 31), !dbg !20
  %231 = bitcast i32 %230 to float, !dbg !20
  %232 = tail call float @llvm.maxnum.f32(float %228, float %231), !dbg !17
  %233 = bitcast float %232 to i32, !dbg !20
  %234 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %233, i32 2, i32 31), !dbg !20
  %235 = bitcast i32 %234 to float, !dbg !20
  %236 = tail call float @llvm.maxnum.f32(float %232, float %235), !dbg !17
  %237 = bitcast float %236 to i32, !dbg !20
  %238 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %237, i32 1, i32 31), !dbg !20
  %239 = bitcast i32 %238 to float, !dbg !20
  %240 = tail call float @llvm.maxnum.f32(float %236, float %239), !dbg !17
  %241 = bitcast float %240 to <1 x i32>, !dbg !20
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %53, <1 x i32> %241, i1 %52) #2, !dbg !20
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !20
  %242 = tail call i32 asm sideeffect "@$2 ld.shared.b32 $0, [ $1 + 0 ];", "=r,r,b"(ptr addrspace(3) %55, i1 %54) #2, !dbg !20
  %243 = bitcast i32 %242 to float, !dbg !20
  %244 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %242, i32 4, i32 31), !dbg !20
  %245 = bitcast i32 %244 to float, !dbg !20
  %246 = tail call float @llvm.maxnum.f32(float %243, float %245), !dbg !17
  %247 = bitcast float %246 to i32, !dbg !20
  %248 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %247, i32 2, i32 31), !dbg !20
  %249 = bitcast i32 %248 to float, !dbg !20
  %250 = tail call float @llvm.maxnum.f32(float %246, float %249), !dbg !17
  %251 = bitcast float %250 to i32, !dbg !20
  %252 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %251, i32 1, i32 31), !dbg !20
  %253 = bitcast i32 %252 to float, !dbg !20
  %254 = tail call float @llvm.maxnum.f32(float %250, float %253), !dbg !17
  %255 = bitcast float %254 to <1 x i32>, !dbg !20
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %55, <1 x i32> %255, i1 %58) #2, !dbg !20
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !20
  %256 = load float, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), align 16, !dbg !20
  %257 = fsub float %127, %256, !dbg !23
  %258 = fsub float %129, %256, !dbg !23
  %259 = fsub float %131, %256, !dbg !23
  %260 = fsub float %133, %256, !dbg !23
  %261 = fsub float %135, %256, !dbg !23
  %262 = fsub float %137, %256, !dbg !23
  %263 = fsub float %139, %256, !dbg !23
  %264 = fsub float %141, %256, !dbg !23
  %265 = fsub float %143, %256, !dbg !23
  %266 = fsub float %145, %256, !dbg !23
  %267 = fsub float %147, %256, !dbg !23
  %268 = fsub float %149, %256, !dbg !23
  %269 = fsub float %151, %256, !dbg !23
  %270 = fsub float %153, %256, !dbg !23
  %271 = fsub float %155, %256, !dbg !23
  %272 = fsub float %157, %256, !dbg !23
  %273 = fsub float %159, %256, !dbg !23
  %274 = fsub float %161, %256, !dbg !23
  %275 = fsub float %163, %256, !dbg !23
  %276 = fsub float %165, %256, !dbg !23
  %277 = fsub float %167, %256, !dbg !23
  %278 = fsub float %169, %256, !dbg !23
  %279 = fsub float %171, %256, !dbg !23
  %280 = fsub float %173, %256, !dbg !23
  %281 = fsub float %175, %256, !dbg !23
  %282 = fsub float %177, %256, !dbg !23
  %283 = fsub float %179, %256, !dbg !23
  %284 = fsub float %181, %256, !dbg !23
  %285 = fsub float %183, %256, !dbg !23
  %286 = fsub float %185, %256, !dbg !23
  %287 = fsub float %187, %256, !dbg !23
  %288 = fsub float %189, %256, !dbg !23
  %289 = fmul float %257, 0x3FF7154760000000, !dbg !24
  %290 = tail call float @llvm.nvvm.ex2.approx.f(float %289), !dbg !24
  %291 = fmul float %258, 0x3FF7154760000000, !dbg !24
  %292 = tail call float @llvm.nvvm.ex2.approx.f(float %291), !dbg !24
  %293 = fmul float %259, 0x3FF7154760000000, !dbg !24
  %294 = tail call float @llvm.nvvm.ex2.approx.f(float %293), !dbg !24
  %295 = fmul float %260, 0x3FF7154760000000, !dbg !24
  %296 = tail call float @llvm.nvvm.ex2.approx.f(float %295), !dbg !24
  %297 = fmul float %261, 0x3FF7154760000000, !dbg !24
  %298 = tail call float @llvm.nvvm.ex2.approx.f(float %297), !dbg !24
  %299 = fmul float %262, 0x3FF7154760000000, !dbg !24
  %300 = tail call float @llvm.nvvm.ex2.approx.f(float %299), !dbg !24
  %301 = fmul float %263, 0x3FF7154760000000, !dbg !24
  %302 = tail call float @llvm.nvvm.ex2.approx.f(float %301), !dbg !24
  %303 = fmul float %264, 0x3FF7154760000000, !dbg !24
  %304 = tail call float @llvm.nvvm.ex2.approx.f(float %303), !dbg !24
  %305 = fmul float %265, 0x3FF7154760000000, !dbg !24
  %306 = tail call float @llvm.nvvm.ex2.approx.f(float %305), !dbg !24
  %307 = fmul float %266, 0x3FF7154760000000, !dbg !24
  %308 = tail call float @llvm.nvvm.ex2.approx.f(float %307), !dbg !24
  %309 = fmul float %267, 0x3FF7154760000000, !dbg !24
  %310 = tail call float @llvm.nvvm.ex2.approx.f(float %309), !dbg !24
  %311 = fmul float %268, 0x3FF7154760000000, !dbg !24
  %312 = tail call float @llvm.nvvm.ex2.approx.f(float %311), !dbg !24
  %313 = fmul float %269, 0x3FF7154760000000, !dbg !24
  %314 = tail call float @llvm.nvvm.ex2.approx.f(float %313), !dbg !24
  %315 = fmul float %270, 0x3FF7154760000000, !dbg !24
  %316 = tail call float @llvm.nvvm.ex2.approx.f(float %315), !dbg !24
  %317 = fmul float %271, 0x3FF7154760000000, !dbg !24
  %318 = tail call float @llvm.nvvm.ex2.approx.f(float %317), !dbg !24
  %319 = fmul float %272, 0x3FF7154760000000, !dbg !24
  %320 = tail call float @llvm.nvvm.ex2.approx.f(float %319), !dbg !24
  %321 = fmul float %273, 0x3FF7154760000000, !dbg !24
  %322 = tail call float @llvm.nvvm.ex2.approx.f(float %321), !dbg !24
  %323 = fmul float %274, 0x3FF7154760000000, !dbg !24
  %324 = tail call float @llvm.nvvm.ex2.approx.f(float %323), !dbg !24
  %325 = fmul float %275, 0x3FF7154760000000, !dbg !24
  %326 = tail call float @llvm.nvvm.ex2.approx.f(float %325), !dbg !24
  %327 = fmul float %276, 0x3FF7154760000000, !dbg !24
  %328 = tail call float @llvm.nvvm.ex2.approx.f(float %327), !dbg !24
  %329 = fmul float %277, 0x3FF7154760000000, !dbg !24
  %330 = tail call float @llvm.nvvm.ex2.approx.f(float %329), !dbg !24
  %331 = fmul float %278, 0x3FF7154760000000, !dbg !24
  %332 = tail call float @llvm.nvvm.ex2.approx.f(float %331), !dbg !24
  %333 = fmul float %279, 0x3FF7154760000000, !dbg !24
  %334 = tail call float @llvm.nvvm.ex2.approx.f(float %333), !dbg !24
  %335 = fmul float %280, 0x3FF7154760000000, !dbg !24
  %336 = tail call float @llvm.nvvm.ex2.approx.f(float %335), !dbg !24
  %337 = fmul float %281, 0x3FF7154760000000, !dbg !24
  %338 = tail call float @llvm.nvvm.ex2.approx.f(float %337), !dbg !24
  %339 = fmul float %282, 0x3FF7154760000000, !dbg !24
  %340 = tail call float @llvm.nvvm.ex2.approx.f(float %339), !dbg !24
  %341 = fmul float %283, 0x3FF7154760000000, !dbg !24
  %342 = tail call float @llvm.nvvm.ex2.approx.f(float %341), !dbg !24
  %343 = fmul float %284, 0x3FF7154760000000, !dbg !24
  %344 = tail call float @llvm.nvvm.ex2.approx.f(float %343), !dbg !24
  %345 = fmul float %285, 0x3FF7154760000000, !dbg !24
  %346 = tail call float @llvm.nvvm.ex2.approx.f(float %345), !dbg !24
  %347 = fmul float %286, 0x3FF7154760000000, !dbg !24
  %348 = tail call float @llvm.nvvm.ex2.approx.f(float %347), !dbg !24
  %349 = fmul float %287, 0x3FF7154760000000, !dbg !24
  %350 = tail call float @llvm.nvvm.ex2.approx.f(float %349), !dbg !24
  %351 = fmul float %288, 0x3FF7154760000000, !dbg !24
  %352 = tail call float @llvm.nvvm.ex2.approx.f(float %351), !dbg !24
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !25
  %353 = fadd float %290, %292, !dbg !27
  %354 = fadd float %353, %294, !dbg !27
  %355 = fadd float %354, %296, !dbg !27
  %356 = fadd float %355, %298, !dbg !27
  %357 = fadd float %356, %300, !dbg !27
  %358 = fadd float %357, %302, !dbg !27
  %359 = fadd float %358, %304, !dbg !27
  %360 = fadd float %359, %306, !dbg !27
  %361 = fadd float %360, %308, !dbg !27
  %362 = fadd float %361, %310, !dbg !27
  %363 = fadd float %362, %312, !dbg !27
  %364 = fadd float %363, %314, !dbg !27
  %365 = fadd float %364, %316, !dbg !27
  %366 = fadd float %365, %318, !dbg !27
  %367 = fadd float %366, %320, !dbg !27
  %368 = fadd float %367, %322, !dbg !27
  %369 = fadd float %368, %324, !dbg !27
  %370 = fadd float %369, %326, !dbg !27
  %371 = fadd float %370, %328, !dbg !27
  %372 = fadd float %371, %330, !dbg !27
  %373 = fadd float %372, %332, !dbg !27
  %374 = fadd float %373, %334, !dbg !27
  %375 = fadd float %374, %336, !dbg !27
  %376 = fadd float %375, %338, !dbg !27
  %377 = fadd float %376, %340, !dbg !27
  %378 = fadd float %377, %342, !dbg !27
  %379 = fadd float %378, %344, !dbg !27
  %380 = fadd float %379, %346, !dbg !27
  %381 = fadd float %380, %348, !dbg !27
  %382 = fadd float %381, %350, !dbg !27
  %383 = fadd float %382, %352, !dbg !27
  %384 = bitcast float %383 to i32, !dbg !25
  %385 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %384, i32 16, i32 31), !dbg !25
  %386 = bitcast i32 %385 to float, !dbg !25
  %387 = fadd float %383, %386, !dbg !27
  %388 = bitcast float %387 to i32, !dbg !25
  %389 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %388, i32 8, i32 31), !dbg !25
  %390 = bitcast i32 %389 to float, !dbg !25
  %391 = fadd float %387, %390, !dbg !27
  %392 = bitcast float %391 to i32, !dbg !25
  %393 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %392, i32 4, i32 31), !dbg !25
  %394 = bitcast i32 %393 to float, !dbg !25
  %395 = fadd float %391, %394, !dbg !27
  %396 = bitcast float %395 to i32, !dbg !25
  %397 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %396, i32 2, i32 31), !dbg !25
  %398 = bitcast i32 %397 to float, !dbg !25
  %399 = fadd float %395, %398, !dbg !27
  %400 = bitcast float %399 to i32, !dbg !25
  %401 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %400, i32 1, i32 31), !dbg !25
  %402 = bitcast i32 %401 to float, !dbg !25
  %403 = fadd float %399, %402, !dbg !27
  %404 = bitcast float %403 to <1 x i32>, !dbg !25
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %53, <1 x i32> %404, i1 %52) #2, !dbg !25
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !25
  %405 = tail call i32 asm sideeffect "@$2 ld.shared.b32 $0, [ $1 + 0 ];", "=r,r,b"(ptr addrspace(3) %55, i1 %54) #2, !dbg !25
  %406 = bitcast i32 %405 to float, !dbg !25
  %407 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %405, i32 4, i32 31), !dbg !25
  %408 = bitcast i32 %407 to float, !dbg !25
  %409 = fadd float %406, %408, !dbg !27
  %410 = bitcast float %409 to i32, !dbg !25
  %411 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %410, i32 2, i32 31), !dbg !25
  %412 = bitcast i32 %411 to float, !dbg !25
  %413 = fadd float %409, %412, !dbg !27
  %414 = bitcast float %413 to i32, !dbg !25
  %415 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %414, i32 1, i32 31), !dbg !25
  %416 = bitcast i32 %415 to float, !dbg !25
  %417 = fadd float %413, %416, !dbg !27
  %418 = bitcast float %417 to <1 x i32>, !dbg !25
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %55, <1 x i32> %418, i1 %58) #2, !dbg !25
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !25
  %419 = load float, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 16384), align 16, !dbg !25
  %420 = tail call float @llvm.nvvm.div.full(float %290, float %419), !dbg !28
  %421 = tail call float @llvm.nvvm.div.full(float %292, float %419), !dbg !28
  %422 = tail call float @llvm.nvvm.div.full(float %294, float %419), !dbg !28
  %423 = tail call float @llvm.nvvm.div.full(float %296, float %419), !dbg !28
  %424 = tail call float @llvm.nvvm.div.full(float %298, float %419), !dbg !28
  %425 = tail call float @llvm.nvvm.div.full(float %300, float %419), !dbg !28
  %426 = tail call float @llvm.nvvm.div.full(float %302, float %419), !dbg !28
  %427 = tail call float @llvm.nvvm.div.full(float %304, float %419), !dbg !28
  %428 = tail call float @llvm.nvvm.div.full(float %306, float %419), !dbg !28
  %429 = tail call float @llvm.nvvm.div.full(float %308, float %419), !dbg !28
  %430 = tail call float @llvm.nvvm.div.full(float %310, float %419), !dbg !28
  %431 = tail call float @llvm.nvvm.div.full(float %312, float %419), !dbg !28
  %432 = tail call float @llvm.nvvm.div.full(float %314, float %419), !dbg !28
  %433 = tail call float @llvm.nvvm.div.full(float %316, float %419), !dbg !28
  %434 = tail call float @llvm.nvvm.div.full(float %318, float %419), !dbg !28
  %435 = tail call float @llvm.nvvm.div.full(float %320, float %419), !dbg !28
  %436 = tail call float @llvm.nvvm.div.full(float %322, float %419), !dbg !28
  %437 = tail call float @llvm.nvvm.div.full(float %324, float %419), !dbg !28
  %438 = tail call float @llvm.nvvm.div.full(float %326, float %419), !dbg !28
  %439 = tail call float @llvm.nvvm.div.full(float %328, float %419), !dbg !28
  %440 = tail call float @llvm.nvvm.div.full(float %330, float %419), !dbg !28
  %441 = tail call float @llvm.nvvm.div.full(float %332, float %419), !dbg !28
  %442 = tail call float @llvm.nvvm.div.full(float %334, float %419), !dbg !28
  %443 = tail call float @llvm.nvvm.div.full(float %336, float %419), !dbg !28
  %444 = tail call float @llvm.nvvm.div.full(float %338, float %419), !dbg !28
  %445 = tail call float @llvm.nvvm.div.full(float %340, float %419), !dbg !28
  %446 = tail call float @llvm.nvvm.div.full(float %342, float %419), !dbg !28
  %447 = tail call float @llvm.nvvm.div.full(float %344, float %419), !dbg !28
  %448 = tail call float @llvm.nvvm.div.full(float %346, float %419), !dbg !28
  %449 = tail call float @llvm.nvvm.div.full(float %348, float %419), !dbg !28
  %450 = tail call float @llvm.nvvm.div.full(float %350, float %419), !dbg !28
  %451 = tail call float @llvm.nvvm.div.full(float %352, float %419), !dbg !28
  %452 = mul i32 %92, %3, !dbg !29
  %453 = sext i32 %452 to i64, !dbg !30
  %454 = getelementptr half, ptr addrspace(1) %1, i64 %453, !dbg !30
  %455 = getelementptr half, ptr addrspace(1) %454, i64 %25, !dbg !31
  %456 = getelementptr half, ptr addrspace(1) %454, i64 %27, !dbg !31
  %457 = getelementptr half, ptr addrspace(1) %454, i64 %29, !dbg !31
  %458 = getelementptr half, ptr addrspace(1) %454, i64 %31, !dbg !31
  %459 = insertelement <2 x float> poison, float %420, i64 0, !dbg !32
  %460 = insertelement <2 x float> %459, float %421, i64 1, !dbg !32
  %461 = fptrunc <2 x float> %460 to <2 x half>, !dbg !32
  %462 = insertelement <2 x float> poison, float %422, i64 0, !dbg !32
  %463 = insertelement <2 x float> %462, float %423, i64 1, !dbg !32
  %464 = fptrunc <2 x float> %463 to <2 x half>, !dbg !32
  %465 = insertelement <2 x float> poison, float %424, i64 0, !dbg !32
  %466 = insertelement <2 x float> %465, float %425, i64 1, !dbg !32
  %467 = fptrunc <2 x float> %466 to <2 x half>, !dbg !32
  %468 = insertelement <2 x float> poison, float %426, i64 0, !dbg !32
  %469 = insertelement <2 x float> %468, float %427, i64 1, !dbg !32
  %470 = fptrunc <2 x float> %469 to <2 x half>, !dbg !32
  %471 = insertelement <2 x float> poison, float %428, i64 0, !dbg !32
  %472 = insertelement <2 x float> %471, float %429, i64 1, !dbg !32
  %473 = fptrunc <2 x float> %472 to <2 x half>, !dbg !32
  %474 = insertelement <2 x float> poison, float %430, i64 0, !dbg !32
  %475 = insertelement <2 x float> %474, float %431, i64 1, !dbg !32
  %476 = fptrunc <2 x float> %475 to <2 x half>, !dbg !32
  %477 = insertelement <2 x float> poison, float %432, i64 0, !dbg !32
  %478 = insertelement <2 x float> %477, float %433, i64 1, !dbg !32
  %479 = fptrunc <2 x float> %478 to <2 x half>, !dbg !32
  %480 = insertelement <2 x float> poison, float %434, i64 0, !dbg !32
  %481 = insertelement <2 x float> %480, float %435, i64 1, !dbg !32
  %482 = fptrunc <2 x float> %481 to <2 x half>, !dbg !32
  %483 = insertelement <2 x float> poison, float %436, i64 0, !dbg !32
  %484 = insertelement <2 x float> %483, float %437, i64 1, !dbg !32
  %485 = fptrunc <2 x float> %484 to <2 x half>, !dbg !32
  %486 = insertelement <2 x float> poison, float %438, i64 0, !dbg !32
  %487 = insertelement <2 x float> %486, float %439, i64 1, !dbg !32
  %488 = fptrunc <2 x float> %487 to <2 x half>, !dbg !32
  %489 = insertelement <2 x float> poison, float %440, i64 0, !dbg !32
  %490 = insertelement <2 x float> %489, float %441, i64 1, !dbg !32
  %491 = fptrunc <2 x float> %490 to <2 x half>, !dbg !32
  %492 = insertelement <2 x float> poison, float %442, i64 0, !dbg !32
  %493 = insertelement <2 x float> %492, float %443, i64 1, !dbg !32
  %494 = fptrunc <2 x float> %493 to <2 x half>, !dbg !32
  %495 = insertelement <2 x float> poison, float %444, i64 0, !dbg !32
  %496 = insertelement <2 x float> %495, float %445, i64 1, !dbg !32
  %497 = fptrunc <2 x float> %496 to <2 x half>, !dbg !32
  %498 = insertelement <2 x float> poison, float %446, i64 0, !dbg !32
  %499 = insertelement <2 x float> %498, float %447, i64 1, !dbg !32
  %500 = fptrunc <2 x float> %499 to <2 x half>, !dbg !32
  %501 = insertelement <2 x float> poison, float %448, i64 0, !dbg !32
  %502 = insertelement <2 x float> %501, float %449, i64 1, !dbg !32
  %503 = fptrunc <2 x float> %502 to <2 x half>, !dbg !32
  %504 = insertelement <2 x float> poison, float %450, i64 0, !dbg !32
  %505 = insertelement <2 x float> %504, float %451, i64 1, !dbg !32
  %506 = fptrunc <2 x float> %505 to <2 x half>, !dbg !32
  %507 = bitcast <2 x half> %461 to i32, !dbg !33
  %508 = bitcast <2 x half> %464 to i32, !dbg !33
  %509 = bitcast <2 x half> %467 to i32, !dbg !33
  %510 = bitcast <2 x half> %470 to i32, !dbg !33
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %507, i32 %508, i32 %509, i32 %510, ptr addrspace(1) %455, i1 %17) #2, !dbg !33
  %511 = bitcast <2 x half> %473 to i32, !dbg !33
  %512 = bitcast <2 x half> %476 to i32, !dbg !33
  %513 = bitcast <2 x half> %479 to i32, !dbg !33
  %514 = bitcast <2 x half> %482 to i32, !dbg !33
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %511, i32 %512, i32 %513, i32 %514, ptr addrspace(1) %456, i1 %18) #2, !dbg !33
  %515 = bitcast <2 x half> %485 to i32, !dbg !33
  %516 = bitcast <2 x half> %488 to i32, !dbg !33
  %517 = bitcast <2 x half> %491 to i32, !dbg !33
  %518 = bitcast <2 x half> %494 to i32, !dbg !33
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %515, i32 %516, i32 %517, i32 %518, ptr addrspace(1) %457, i1 %19) #2, !dbg !33
  %519 = bitcast <2 x half> %497 to i32, !dbg !33
  %520 = bitcast <2 x half> %500 to i32, !dbg !33
  %521 = bitcast <2 x half> %503 to i32, !dbg !33
  %522 = bitcast <2 x half> %506 to i32, !dbg !33
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %519, i32 %520, i32 %521, i32 %522, ptr addrspace(1) %458, i1 %20) #2, !dbg !33
  %523 = add i32 %92, %10, !dbg !11
  %524 = mul i32 %523, %2, !dbg !12
  %525 = sext i32 %524 to i64, !dbg !13
  %526 = getelementptr half, ptr addrspace(1) %0, i64 %525, !dbg !13
  %527 = getelementptr half, ptr addrspace(1) %526, i64 %25, !dbg !14
  %528 = getelementptr half, ptr addrspace(1) %526, i64 %27, !dbg !14
  %529 = getelementptr half, ptr addrspace(1) %526, i64 %29, !dbg !14
  %530 = getelementptr half, ptr addrspace(1) %526, i64 %31, !dbg !14
  %531 = and i1 %17, %93, !dbg !11
  %532 = and i1 %18, %93, !dbg !11
  %533 = and i1 %19, %93, !dbg !11
  %534 = and i1 %20, %93, !dbg !11
  %535 = select i1 %531, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) %38, ptr addrspace(1) %527, i32 %535) #2, !dbg !15
  %536 = select i1 %532, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %41, ptr addrspace(1) %528, i32 %536) #2, !dbg !15
  %537 = select i1 %533, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %44, ptr addrspace(1) %529, i32 %537) #2, !dbg !15
  %538 = select i1 %534, i32 16, i32 0, !dbg !15
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x10, $2;", "r,l,r"(ptr addrspace(3) nonnull %47, ptr addrspace(1) %530, i32 %538) #2, !dbg !15
  tail call void @llvm.nvvm.cp.async.commit.group(), !dbg !15
  %539 = icmp slt i32 %523, %4, !dbg !11
  br i1 %539, label %91, label %._crit_edge, !dbg !11

._crit_edge:                                      ; preds = %91, %8
  tail call void @llvm.nvvm.cp.async.wait.group(i32 0), !dbg !11
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !11
  ret void, !dbg !34
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: nounwind
declare void @llvm.nvvm.cp.async.commit.group() #2

; Function Attrs: nounwind
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg) #2

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maxnum.f32(float, float) #1

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32) #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.ex2.approx.f(float) #5

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.div.full(float, float) #5

attributes #0 = { nounwind "nvvm.reqntid"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #5 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "kernels.py", directory: "/work/main/tests/triton")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!4 = distinct !DISubprogram(name: "softmax_rows", linkageName: "softmax_rows", scope: !1, file: !1, line: 153, type: !5, scopeLine: 153, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 160, column: 26, scope: !4)
!8 = !DILocation(line: 161, column: 27, scope: !4)
!9 = !DILocation(line: 162, column: 24, scope: !4)
!10 = !DILocation(line: 163, column: 16, scope: !4)
!11 = !DILocation(line: 164, column: 43, scope: !4)
!12 = !DILocation(line: 165, column: 34, scope: !4)
!13 = !DILocation(line: 165, column: 28, scope: !4)
!14 = !DILocation(line: 165, column: 49, scope: !4)
!15 = !DILocation(line: 165, column: 20, scope: !4)
!16 = !DILocation(line: 165, column: 88, scope: !4)
!17 = !DILocation(line: 170, column: 27, scope: !18, inlinedAt: !20)
!18 = distinct !DILexicalBlockFile(scope: !4, file: !19, discriminator: 0)
!19 = !DIFile(filename: "standard.py", directory: "/work/main/.tools/triton/triton/language")
!20 = !DILocation(line: 191, column: 40, scope: !18, inlinedAt: !21)
!21 = !DILocation(line: 166, column: 30, scope: !22)
!22 = distinct !DILexicalBlockFile(scope: !4, file: !1, discriminator: 0)
!23 = !DILocation(line: 166, column: 23, scope: !4)
!24 = !DILocation(line: 166, column: 19, scope: !4)
!25 = !DILocation(line: 293, column: 36, scope: !18, inlinedAt: !26)
!26 = !DILocation(line: 167, column: 23, scope: !22)
!27 = !DILocation(line: 263, column: 15, scope: !18, inlinedAt: !25)
!28 = !DILocation(line: 167, column: 16, scope: !4)
!29 = !DILocation(line: 168, column: 31, scope: !4)
!30 = !DILocation(line: 168, column: 25, scope: !4)
!31 = !DILocation(line: 168, column: 46, scope: !4)
!32 = !DILocation(line: 168, column: 57, scope: !4)
!33 = !DILocation(line: 168, column: 52, scope: !4)
!34 = !DILocation(line: 164, column: 4, scope: !4)

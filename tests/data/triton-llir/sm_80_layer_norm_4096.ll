; Triton 3.6.0's llir of tests/triton/kernels.py (sm_80_layer_norm_4096; the Triton suite, tests/triton/compile_suite.py), with the NVPTX target triple added (Triton's llir has none).
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16
@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\00", align 1
@.str.2 = private unnamed_addr constant [17 x i8] c"__CUDA_PREC_SQRT\00", align 1

; Function Attrs: nounwind
define ptx_kernel void @layer_norm_rows(ptr addrspace(1) %0, ptr addrspace(1) %1, ptr addrspace(1) %2, ptr addrspace(1) %3, ptr addrspace(1) %4, ptr addrspace(1) %5, i32 %6, i32 %7, float %8, ptr addrspace(1) readnone captures(none) %9, ptr addrspace(1) readnone captures(none) %10) local_unnamed_addr #0 !dbg !5 {
  %12 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !8
  %13 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !9
  %14 = and i32 %13, 255, !dbg !9
  %15 = and i32 %13, 31, !dbg !9
  %16 = lshr i32 %14, 5, !dbg !9
  %17 = shl nuw nsw i32 %13, 3, !dbg !9
  %18 = and i32 %17, 2040, !dbg !9
  %19 = or disjoint i32 %18, 2048, !dbg !9
  %20 = icmp slt i32 %18, %7, !dbg !10
  %21 = icmp slt i32 %19, %7, !dbg !10
  %22 = mul i32 %6, %12, !dbg !11
  %23 = sext i32 %22 to i64, !dbg !12
  %24 = getelementptr half, ptr addrspace(1) %0, i64 %23, !dbg !12
  %25 = zext nneg i32 %18 to i64, !dbg !13
  %26 = getelementptr half, ptr addrspace(1) %24, i64 %25, !dbg !13
  %27 = zext nneg i32 %19 to i64, !dbg !13
  %28 = getelementptr half, ptr addrspace(1) %24, i64 %27, !dbg !13
  %29 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %26, i1 %20) #6, !dbg !14
  %30 = extractvalue { i32, i32, i32, i32 } %29, 0, !dbg !14
  %31 = bitcast i32 %30 to <2 x half>, !dbg !14
  %32 = extractvalue { i32, i32, i32, i32 } %29, 1, !dbg !14
  %33 = bitcast i32 %32 to <2 x half>, !dbg !14
  %34 = extractvalue { i32, i32, i32, i32 } %29, 2, !dbg !14
  %35 = bitcast i32 %34 to <2 x half>, !dbg !14
  %36 = extractvalue { i32, i32, i32, i32 } %29, 3, !dbg !14
  %37 = bitcast i32 %36 to <2 x half>, !dbg !14
  %38 = extractelement <2 x half> %31, i64 0, !dbg !14
  %39 = extractelement <2 x half> %31, i64 1, !dbg !14
  %40 = extractelement <2 x half> %33, i64 0, !dbg !14
  %41 = extractelement <2 x half> %33, i64 1, !dbg !14
  %42 = extractelement <2 x half> %35, i64 0, !dbg !14
  %43 = extractelement <2 x half> %35, i64 1, !dbg !14
  %44 = extractelement <2 x half> %37, i64 0, !dbg !14
  %45 = extractelement <2 x half> %37, i64 1, !dbg !14
  %46 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %28, i1 %21) #6, !dbg !14
  %47 = extractvalue { i32, i32, i32, i32 } %46, 0, !dbg !14
  %48 = bitcast i32 %47 to <2 x half>, !dbg !14
  %49 = extractvalue { i32, i32, i32, i32 } %46, 1, !dbg !14
  %50 = bitcast i32 %49 to <2 x half>, !dbg !14
  %51 = extractvalue { i32, i32, i32, i32 } %46, 2, !dbg !14
  %52 = bitcast i32 %51 to <2 x half>, !dbg !14
  %53 = extractvalue { i32, i32, i32, i32 } %46, 3, !dbg !14
  %54 = bitcast i32 %53 to <2 x half>, !dbg !14
  %55 = extractelement <2 x half> %48, i64 0, !dbg !14
  %56 = extractelement <2 x half> %48, i64 1, !dbg !14
  %57 = extractelement <2 x half> %50, i64 0, !dbg !14
  %58 = extractelement <2 x half> %50, i64 1, !dbg !14
  %59 = extractelement <2 x half> %52, i64 0, !dbg !14
  %60 = extractelement <2 x half> %52, i64 1, !dbg !14
  %61 = extractelement <2 x half> %54, i64 0, !dbg !14
  %62 = extractelement <2 x half> %54, i64 1, !dbg !14
  %63 = fpext half %38 to float, !dbg !15
  %64 = fpext half %39 to float, !dbg !15
  %65 = fpext half %40 to float, !dbg !15
  %66 = fpext half %41 to float, !dbg !15
  %67 = fpext half %42 to float, !dbg !15
  %68 = fpext half %43 to float, !dbg !15
  %69 = fpext half %44 to float, !dbg !15
  %70 = fpext half %45 to float, !dbg !15
  %71 = fpext half %55 to float, !dbg !15
  %72 = fpext half %56 to float, !dbg !15
  %73 = fpext half %57 to float, !dbg !15
  %74 = fpext half %58 to float, !dbg !15
  %75 = fpext half %59 to float, !dbg !15
  %76 = fpext half %60 to float, !dbg !15
  %77 = fpext half %61 to float, !dbg !15
  %78 = fpext half %62 to float, !dbg !15
  %79 = fadd float %63, %64, !dbg !16
  %80 = fadd float %79, %65, !dbg !16
  %81 = fadd float %80, %66, !dbg !16
  %82 = fadd float %81, %67, !dbg !16
  %83 = fadd float %82, %68, !dbg !16
  %84 = fadd float %83, %69, !dbg !16
  %85 = fadd float %84, %70, !dbg !16
  %86 = fadd float %85, %71, !dbg !16
  %87 = fadd float %86, %72, !dbg !16
  %88 = fadd float %87, %73, !dbg !16
  %89 = fadd float %88, %74, !dbg !16
  %90 = fadd float %89, %75, !dbg !16
  %91 = fadd float %90, %76, !dbg !16
  %92 = fadd float %91, %77, !dbg !16
  %93 = fadd float %92, %78, !dbg !16
  %94 = bitcast float %93 to i32, !dbg !19
  %95 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %94, i32 16, i32 31), !dbg !19
  %96 = bitcast i32 %95 to float, !dbg !19
  %97 = fadd float %93, %96, !dbg !16
  %98 = bitcast float %97 to i32, !dbg !19
  %99 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %98, i32 8, i32 31), !dbg !19
  %100 = bitcast i32 %99 to float, !dbg !19
  %101 = fadd float %97, %100, !dbg !16
  %102 = bitcast float %101 to i32, !dbg !19
  %103 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %102, i32 4, i32 31), !dbg !19
  %104 = bitcast i32 %103 to float, !dbg !19
  %105 = fadd float %101, %104, !dbg !16
  %106 = bitcast float %105 to i32, !dbg !19
  %107 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %106, i32 2, i32 31), !dbg !19
  %108 = bitcast i32 %107 to float, !dbg !19
  %109 = fadd float %105, %108, !dbg !16
  %110 = bitcast float %109 to i32, !dbg !19
  %111 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %110, i32 1, i32 31), !dbg !19
  %112 = bitcast i32 %111 to float, !dbg !19
  %113 = fadd float %109, %112, !dbg !16
  %114 = icmp eq i32 %15, 0, !dbg !19
  %115 = getelementptr float, ptr addrspace(3) @global_smem, i32 %16, !dbg !19
  %116 = bitcast float %113 to <1 x i32>, !dbg !19
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %115, <1 x i32> %116, i1 %114) #6, !dbg !19
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !19
  %117 = icmp samesign ult i32 %14, 8, !dbg !19
  %118 = getelementptr float, ptr addrspace(3) @global_smem, i32 %14, !dbg !19
  %119 = tail call i32 asm sideeffect "@$2 ld.shared.b32 $0, [ $1 + 0 ];", "=r,r,b"(ptr addrspace(3) %118, i1 %117) #6, !dbg !19
  %120 = bitcast i32 %119 to float, !dbg !19
  %121 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %119, i32 4, i32 31), !dbg !19
  %122 = bitcast i32 %121 to float, !dbg !19
  %123 = fadd float %120, %122, !dbg !16
  %124 = bitcast float %123 to i32, !dbg !19
  %125 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %124, i32 2, i32 31), !dbg !19
  %126 = bitcast i32 %125 to float, !dbg !19
  %127 = fadd float %123, %126, !dbg !16
  %128 = bitcast float %127 to i32, !dbg !19
  %129 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %128, i32 1, i32 31), !dbg !19
  %130 = bitcast i32 %129 to float, !dbg !19
  %131 = fadd float %127, %130, !dbg !16
  %132 = and i32 %13, 7, !dbg !19
  %133 = icmp eq i32 %132, 0, !dbg !19
  %134 = and i1 %117, %133, !dbg !19
  %135 = bitcast float %131 to <1 x i32>, !dbg !19
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %118, <1 x i32> %135, i1 %134) #6, !dbg !19
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !19
  %136 = load float, ptr addrspace(3) @global_smem, align 16, !dbg !19
  %137 = sitofp i32 %7 to float, !dbg !22
  %138 = tail call float @llvm.nvvm.div.full(float %136, float %137), !dbg !22
  %139 = fsub float %63, %138, !dbg !23
  %140 = fsub float %64, %138, !dbg !23
  %141 = fsub float %65, %138, !dbg !23
  %142 = fsub float %66, %138, !dbg !23
  %143 = fsub float %67, %138, !dbg !23
  %144 = fsub float %68, %138, !dbg !23
  %145 = fsub float %69, %138, !dbg !23
  %146 = fsub float %70, %138, !dbg !23
  %147 = fsub float %71, %138, !dbg !23
  %148 = fsub float %72, %138, !dbg !23
  %149 = fsub float %73, %138, !dbg !23
  %150 = fsub float %74, %138, !dbg !23
  %151 = fsub float %75, %138, !dbg !23
  %152 = fsub float %76, %138, !dbg !23
  %153 = fsub float %77, %138, !dbg !23
  %154 = fsub float %78, %138, !dbg !23
  %155 = select i1 %20, float %139, float 0.000000e+00, !dbg !24
  %156 = select i1 %20, float %140, float 0.000000e+00, !dbg !24
  %157 = select i1 %20, float %141, float 0.000000e+00, !dbg !24
  %158 = select i1 %20, float %142, float 0.000000e+00, !dbg !24
  %159 = select i1 %20, float %143, float 0.000000e+00, !dbg !24
  %160 = select i1 %20, float %144, float 0.000000e+00, !dbg !24
  %161 = select i1 %20, float %145, float 0.000000e+00, !dbg !24
  %162 = select i1 %20, float %146, float 0.000000e+00, !dbg !24
  %163 = select i1 %21, float %147, float 0.000000e+00, !dbg !24
  %164 = select i1 %21, float %148, float 0.000000e+00, !dbg !24
  %165 = select i1 %21, float %149, float 0.000000e+00, !dbg !24
  %166 = select i1 %21, float %150, float 0.000000e+00, !dbg !24
  %167 = select i1 %21, float %151, float 0.000000e+00, !dbg !24
  %168 = select i1 %21, float %152, float 0.000000e+00, !dbg !24
  %169 = select i1 %21, float %153, float 0.000000e+00, !dbg !24
  %170 = select i1 %21, float %154, float 0.000000e+00, !dbg !24
  %171 = fmul float %155, %155, !dbg !25
  %172 = fmul float %156, %156, !dbg !25
  %173 = fmul float %157, %157, !dbg !25
  %174 = fmul float %158, %158, !dbg !25
  %175 = fmul float %159, %159, !dbg !25
  %176 = fmul float %160, %160, !dbg !25
  %177 = fmul float %161, %161, !dbg !25
  %178 = fmul float %162, %162, !dbg !25
  %179 = fmul float %163, %163, !dbg !25
  %180 = fmul float %164, %164, !dbg !25
  %181 = fmul float %165, %165, !dbg !25
  %182 = fmul float %166, %166, !dbg !25
  %183 = fmul float %167, %167, !dbg !25
  %184 = fmul float %168, %168, !dbg !25
  %185 = fmul float %169, %169, !dbg !25
  %186 = fmul float %170, %170, !dbg !25
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !26
  %187 = fadd float %171, %172, !dbg !28
  %188 = fadd float %173, %187, !dbg !28
  %189 = fadd float %174, %188, !dbg !28
  %190 = fadd float %175, %189, !dbg !28
  %191 = fadd float %176, %190, !dbg !28
  %192 = fadd float %177, %191, !dbg !28
  %193 = fadd float %178, %192, !dbg !28
  %194 = fadd float %179, %193, !dbg !28
  %195 = fadd float %180, %194, !dbg !28
  %196 = fadd float %181, %195, !dbg !28
  %197 = fadd float %182, %196, !dbg !28
  %198 = fadd float %183, %197, !dbg !28
  %199 = fadd float %184, %198, !dbg !28
  %200 = fadd float %185, %199, !dbg !28
  %201 = fadd float %186, %200, !dbg !28
  %202 = bitcast float %201 to i32, !dbg !26
  %203 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %202, i32 16, i32 31), !dbg !26
  %204 = bitcast i32 %203 to float, !dbg !26
  %205 = fadd float %201, %204, !dbg !28
  %206 = bitcast float %205 to i32, !dbg !26
  %207 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %206, i32 8, i32 31), !dbg !26
  %208 = bitcast i32 %207 to float, !dbg !26
  %209 = fadd float %205, %208, !dbg !28
  %210 = bitcast float %209 to i32, !dbg !26
  %211 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %210, i32 4, i32 31), !dbg !26
  %212 = bitcast i32 %211 to float, !dbg !26
  %213 = fadd float %209, %212, !dbg !28
  %214 = bitcast float %213 to i32, !dbg !26
  %215 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %214, i32 2, i32 31), !dbg !26
  %216 = bitcast i32 %215 to float, !dbg !26
  %217 = fadd float %213, %216, !dbg !28
  %218 = bitcast float %217 to i32, !dbg !26
  %219 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %218, i32 1, i32 31), !dbg !26
  %220 = bitcast i32 %219 to float, !dbg !26
  %221 = fadd float %217, %220, !dbg !28
  %222 = bitcast float %221 to <1 x i32>, !dbg !26
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %115, <1 x i32> %222, i1 %114) #6, !dbg !26
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !26
  %223 = tail call i32 asm sideeffect "@$2 ld.shared.b32 $0, [ $1 + 0 ];", "=r,r,b"(ptr addrspace(3) %118, i1 %117) #6, !dbg !26
  %224 = bitcast i32 %223 to float, !dbg !26
  %225 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %223, i32 4, i32 31), !dbg !26
  %226 = bitcast i32 %225 to float, !dbg !26
  %227 = fadd float %224, %226, !dbg !28
  %228 = bitcast float %227 to i32, !dbg !26
  %229 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %228, i32 2, i32 31), !dbg !26
  %230 = bitcast i32 %229 to float, !dbg !26
  %231 = fadd float %227, %230, !dbg !28
  %232 = bitcast float %231 to i32, !dbg !26
  %233 = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %232, i32 1, i32 31), !dbg !26
  %234 = bitcast i32 %233 to float, !dbg !26
  %235 = fadd float %231, %234, !dbg !28
  %236 = bitcast float %235 to <1 x i32>, !dbg !26
  tail call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %118, <1 x i32> %236, i1 %134) #6, !dbg !26
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !26
  %237 = load float, ptr addrspace(3) @global_smem, align 16, !dbg !26
  %238 = tail call float @llvm.nvvm.div.full(float %237, float %137), !dbg !29
  %239 = fadd float %8, %238, !dbg !30
  %240 = tail call i32 @__nvvm_reflect(ptr nonnull @.str) #6, !dbg !31
  %.not.i = icmp eq i32 %240, 0, !dbg !31
  %241 = tail call i32 @__nvvm_reflect(ptr nonnull @.str.2) #6, !dbg !31
  %.not1.i = icmp eq i32 %241, 0, !dbg !31
  br i1 %.not.i, label %247, label %242, !dbg !31

242:                                              ; preds = %11
  br i1 %.not1.i, label %245, label %243, !dbg !31

243:                                              ; preds = %242
  %244 = tail call float @llvm.nvvm.sqrt.rn.ftz.f(float %239) #6, !dbg !31
  br label %__nv_sqrtf.exit, !dbg !31

245:                                              ; preds = %242
  %246 = tail call float @llvm.nvvm.sqrt.approx.ftz.f(float %239) #6, !dbg !31
  br label %__nv_sqrtf.exit, !dbg !31

247:                                              ; preds = %11
  br i1 %.not1.i, label %250, label %248, !dbg !31

248:                                              ; preds = %247
  %249 = tail call float @llvm.nvvm.sqrt.rn.f(float %239) #6, !dbg !31
  br label %__nv_sqrtf.exit, !dbg !31

250:                                              ; preds = %247
  %251 = tail call float @llvm.nvvm.sqrt.approx.f(float %239) #6, !dbg !31
  br label %__nv_sqrtf.exit, !dbg !31

__nv_sqrtf.exit:                                  ; preds = %243, %245, %248, %250
  %.0.i = phi float [ %244, %243 ], [ %246, %245 ], [ %249, %248 ], [ %251, %250 ], !dbg !31
  %252 = or disjoint i32 %18, 2052, !dbg !9
  %253 = or disjoint i32 %18, 4, !dbg !9
  %254 = tail call float @llvm.nvvm.div.full(float 1.000000e+00, float %.0.i), !dbg !32
  %255 = getelementptr float, ptr addrspace(1) %2, i64 %25, !dbg !33
  %256 = zext nneg i32 %253 to i64, !dbg !33
  %257 = getelementptr float, ptr addrspace(1) %2, i64 %256, !dbg !33
  %258 = getelementptr float, ptr addrspace(1) %2, i64 %27, !dbg !33
  %259 = zext nneg i32 %252 to i64, !dbg !33
  %260 = getelementptr float, ptr addrspace(1) %2, i64 %259, !dbg !33
  %261 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %255, i1 %20) #6, !dbg !34
  %262 = extractvalue { i32, i32, i32, i32 } %261, 0, !dbg !34
  %263 = extractvalue { i32, i32, i32, i32 } %261, 1, !dbg !34
  %264 = extractvalue { i32, i32, i32, i32 } %261, 2, !dbg !34
  %265 = extractvalue { i32, i32, i32, i32 } %261, 3, !dbg !34
  %266 = bitcast i32 %262 to float, !dbg !34
  %267 = bitcast i32 %263 to float, !dbg !34
  %268 = bitcast i32 %264 to float, !dbg !34
  %269 = bitcast i32 %265 to float, !dbg !34
  %270 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %257, i1 %20) #6, !dbg !34
  %271 = extractvalue { i32, i32, i32, i32 } %270, 0, !dbg !34
  %272 = extractvalue { i32, i32, i32, i32 } %270, 1, !dbg !34
  %273 = extractvalue { i32, i32, i32, i32 } %270, 2, !dbg !34
  %274 = extractvalue { i32, i32, i32, i32 } %270, 3, !dbg !34
  %275 = bitcast i32 %271 to float, !dbg !34
  %276 = bitcast i32 %272 to float, !dbg !34
  %277 = bitcast i32 %273 to float, !dbg !34
  %278 = bitcast i32 %274 to float, !dbg !34
  %279 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %258, i1 %21) #6, !dbg !34
  %280 = extractvalue { i32, i32, i32, i32 } %279, 0, !dbg !34
  %281 = extractvalue { i32, i32, i32, i32 } %279, 1, !dbg !34
  %282 = extractvalue { i32, i32, i32, i32 } %279, 2, !dbg !34
  %283 = extractvalue { i32, i32, i32, i32 } %279, 3, !dbg !34
  %284 = bitcast i32 %280 to float, !dbg !34
  %285 = bitcast i32 %281 to float, !dbg !34
  %286 = bitcast i32 %282 to float, !dbg !34
  %287 = bitcast i32 %283 to float, !dbg !34
  %288 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %260, i1 %21) #6, !dbg !34
  %289 = extractvalue { i32, i32, i32, i32 } %288, 0, !dbg !34
  %290 = extractvalue { i32, i32, i32, i32 } %288, 1, !dbg !34
  %291 = extractvalue { i32, i32, i32, i32 } %288, 2, !dbg !34
  %292 = extractvalue { i32, i32, i32, i32 } %288, 3, !dbg !34
  %293 = bitcast i32 %289 to float, !dbg !34
  %294 = bitcast i32 %290 to float, !dbg !34
  %295 = bitcast i32 %291 to float, !dbg !34
  %296 = bitcast i32 %292 to float, !dbg !34
  %297 = getelementptr float, ptr addrspace(1) %3, i64 %25, !dbg !35
  %298 = getelementptr float, ptr addrspace(1) %3, i64 %256, !dbg !35
  %299 = getelementptr float, ptr addrspace(1) %3, i64 %27, !dbg !35
  %300 = getelementptr float, ptr addrspace(1) %3, i64 %259, !dbg !35
  %301 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %297, i1 %20) #6, !dbg !36
  %302 = extractvalue { i32, i32, i32, i32 } %301, 0, !dbg !36
  %303 = extractvalue { i32, i32, i32, i32 } %301, 1, !dbg !36
  %304 = extractvalue { i32, i32, i32, i32 } %301, 2, !dbg !36
  %305 = extractvalue { i32, i32, i32, i32 } %301, 3, !dbg !36
  %306 = bitcast i32 %302 to float, !dbg !36
  %307 = bitcast i32 %303 to float, !dbg !36
  %308 = bitcast i32 %304 to float, !dbg !36
  %309 = bitcast i32 %305 to float, !dbg !36
  %310 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %298, i1 %20) #6, !dbg !36
  %311 = extractvalue { i32, i32, i32, i32 } %310, 0, !dbg !36
  %312 = extractvalue { i32, i32, i32, i32 } %310, 1, !dbg !36
  %313 = extractvalue { i32, i32, i32, i32 } %310, 2, !dbg !36
  %314 = extractvalue { i32, i32, i32, i32 } %310, 3, !dbg !36
  %315 = bitcast i32 %311 to float, !dbg !36
  %316 = bitcast i32 %312 to float, !dbg !36
  %317 = bitcast i32 %313 to float, !dbg !36
  %318 = bitcast i32 %314 to float, !dbg !36
  %319 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %299, i1 %21) #6, !dbg !36
  %320 = extractvalue { i32, i32, i32, i32 } %319, 0, !dbg !36
  %321 = extractvalue { i32, i32, i32, i32 } %319, 1, !dbg !36
  %322 = extractvalue { i32, i32, i32, i32 } %319, 2, !dbg !36
  %323 = extractvalue { i32, i32, i32, i32 } %319, 3, !dbg !36
  %324 = bitcast i32 %320 to float, !dbg !36
  %325 = bitcast i32 %321 to float, !dbg !36
  %326 = bitcast i32 %322 to float, !dbg !36
  %327 = bitcast i32 %323 to float, !dbg !36
  %328 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, $4;\0A\09mov.u32 $1, $5;\0A\09mov.u32 $2, $6;\0A\09mov.u32 $3, $7;\0A\09@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $8 + 0 ];", "=r,=r,=r,=r,r,r,r,r,l,b"(i32 0, i32 0, i32 0, i32 0, ptr addrspace(1) %300, i1 %21) #6, !dbg !36
  %329 = extractvalue { i32, i32, i32, i32 } %328, 0, !dbg !36
  %330 = extractvalue { i32, i32, i32, i32 } %328, 1, !dbg !36
  %331 = extractvalue { i32, i32, i32, i32 } %328, 2, !dbg !36
  %332 = extractvalue { i32, i32, i32, i32 } %328, 3, !dbg !36
  %333 = bitcast i32 %329 to float, !dbg !36
  %334 = bitcast i32 %330 to float, !dbg !36
  %335 = bitcast i32 %331 to float, !dbg !36
  %336 = bitcast i32 %332 to float, !dbg !36
  %337 = fmul float %155, %254, !dbg !37
  %338 = fmul float %156, %254, !dbg !37
  %339 = fmul float %157, %254, !dbg !37
  %340 = fmul float %158, %254, !dbg !37
  %341 = fmul float %159, %254, !dbg !37
  %342 = fmul float %160, %254, !dbg !37
  %343 = fmul float %161, %254, !dbg !37
  %344 = fmul float %162, %254, !dbg !37
  %345 = fmul float %163, %254, !dbg !37
  %346 = fmul float %164, %254, !dbg !37
  %347 = fmul float %165, %254, !dbg !37
  %348 = fmul float %166, %254, !dbg !37
  %349 = fmul float %167, %254, !dbg !37
  %350 = fmul float %168, %254, !dbg !37
  %351 = fmul float %169, %254, !dbg !37
  %352 = fmul float %170, %254, !dbg !37
  %353 = fmul float %337, %266, !dbg !38
  %354 = fmul float %338, %267, !dbg !38
  %355 = fmul float %339, %268, !dbg !38
  %356 = fmul float %340, %269, !dbg !38
  %357 = fmul float %341, %275, !dbg !38
  %358 = fmul float %342, %276, !dbg !38
  %359 = fmul float %343, %277, !dbg !38
  %360 = fmul float %344, %278, !dbg !38
  %361 = fmul float %345, %284, !dbg !38
  %362 = fmul float %346, %285, !dbg !38
  %363 = fmul float %347, %286, !dbg !38
  %364 = fmul float %348, %287, !dbg !38
  %365 = fmul float %349, %293, !dbg !38
  %366 = fmul float %350, %294, !dbg !38
  %367 = fmul float %351, %295, !dbg !38
  %368 = fmul float %352, %296, !dbg !38
  %369 = fadd float %353, %306, !dbg !39
  %370 = fadd float %354, %307, !dbg !39
  %371 = fadd float %355, %308, !dbg !39
  %372 = fadd float %356, %309, !dbg !39
  %373 = fadd float %357, %315, !dbg !39
  %374 = fadd float %358, %316, !dbg !39
  %375 = fadd float %359, %317, !dbg !39
  %376 = fadd float %360, %318, !dbg !39
  %377 = fadd float %361, %324, !dbg !39
  %378 = fadd float %362, %325, !dbg !39
  %379 = fadd float %363, %326, !dbg !39
  %380 = fadd float %364, %327, !dbg !39
  %381 = fadd float %365, %333, !dbg !39
  %382 = fadd float %366, %334, !dbg !39
  %383 = fadd float %367, %335, !dbg !39
  %384 = fadd float %368, %336, !dbg !39
  %385 = getelementptr half, ptr addrspace(1) %1, i64 %23, !dbg !40
  %386 = getelementptr half, ptr addrspace(1) %385, i64 %25, !dbg !41
  %387 = getelementptr half, ptr addrspace(1) %385, i64 %27, !dbg !41
  %388 = fptrunc float %369 to half, !dbg !42
  %389 = fptrunc float %370 to half, !dbg !42
  %390 = fptrunc float %371 to half, !dbg !42
  %391 = fptrunc float %372 to half, !dbg !42
  %392 = fptrunc float %373 to half, !dbg !42
  %393 = fptrunc float %374 to half, !dbg !42
  %394 = fptrunc float %375 to half, !dbg !42
  %395 = fptrunc float %376 to half, !dbg !42
  %396 = fptrunc float %377 to half, !dbg !42
  %397 = fptrunc float %378 to half, !dbg !42
  %398 = fptrunc float %379 to half, !dbg !42
  %399 = fptrunc float %380 to half, !dbg !42
  %400 = fptrunc float %381 to half, !dbg !42
  %401 = fptrunc float %382 to half, !dbg !42
  %402 = fptrunc float %383 to half, !dbg !42
  %403 = fptrunc float %384 to half, !dbg !42
  %404 = insertelement <2 x half> poison, half %388, i64 0, !dbg !43
  %405 = insertelement <2 x half> %404, half %389, i64 1, !dbg !43
  %406 = bitcast <2 x half> %405 to i32, !dbg !43
  %407 = insertelement <2 x half> poison, half %390, i64 0, !dbg !43
  %408 = insertelement <2 x half> %407, half %391, i64 1, !dbg !43
  %409 = bitcast <2 x half> %408 to i32, !dbg !43
  %410 = insertelement <2 x half> poison, half %392, i64 0, !dbg !43
  %411 = insertelement <2 x half> %410, half %393, i64 1, !dbg !43
  %412 = bitcast <2 x half> %411 to i32, !dbg !43
  %413 = insertelement <2 x half> poison, half %394, i64 0, !dbg !43
  %414 = insertelement <2 x half> %413, half %395, i64 1, !dbg !43
  %415 = bitcast <2 x half> %414 to i32, !dbg !43
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %406, i32 %409, i32 %412, i32 %415, ptr addrspace(1) %386, i1 %20) #6, !dbg !43
  %416 = insertelement <2 x half> poison, half %396, i64 0, !dbg !43
  %417 = insertelement <2 x half> %416, half %397, i64 1, !dbg !43
  %418 = bitcast <2 x half> %417 to i32, !dbg !43
  %419 = insertelement <2 x half> poison, half %398, i64 0, !dbg !43
  %420 = insertelement <2 x half> %419, half %399, i64 1, !dbg !43
  %421 = bitcast <2 x half> %420 to i32, !dbg !43
  %422 = insertelement <2 x half> poison, half %400, i64 0, !dbg !43
  %423 = insertelement <2 x half> %422, half %401, i64 1, !dbg !43
  %424 = bitcast <2 x half> %423 to i32, !dbg !43
  %425 = insertelement <2 x half> poison, half %402, i64 0, !dbg !43
  %426 = insertelement <2 x half> %425, half %403, i64 1, !dbg !43
  %427 = bitcast <2 x half> %426 to i32, !dbg !43
  tail call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %418, i32 %421, i32 %424, i32 %427, ptr addrspace(1) %387, i1 %21) #6, !dbg !43
  %428 = zext nneg i32 %12 to i64, !dbg !44
  %429 = getelementptr float, ptr addrspace(1) %4, i64 %428, !dbg !44
  %430 = icmp samesign ult i32 %14, 32, !dbg !45
  %431 = and i1 %114, %430, !dbg !45
  %432 = bitcast float %138 to i32, !dbg !45
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %432, ptr addrspace(1) %429, i1 %431) #6, !dbg !45
  %433 = getelementptr float, ptr addrspace(1) %5, i64 %428, !dbg !46
  %434 = bitcast float %254 to i32, !dbg !47
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %434, ptr addrspace(1) %433, i1 %431) #6, !dbg !47
  ret void, !dbg !48
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32) #2

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.div.full(float, float) #4

declare i32 @__nvvm_reflect(ptr) local_unnamed_addr #5

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.sqrt.rn.ftz.f(float) #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.sqrt.approx.ftz.f(float) #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.sqrt.rn.f(float) #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.sqrt.approx.f(float) #4

attributes #0 = { nounwind "nvvm.reqntid"="256" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }
attributes #5 = { "disable-tail-calls"="false" "frame-pointer"="all" "less-precise-fpmad"="false" "no-infs-fp-math"="false" "no-nans-fp-math"="false" "stack-protector-buffer-size"="8" "unsafe-fp-math"="false" "use-soft-float"="false" }
attributes #6 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!llvm.ident = !{!4}

!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "kernels.py", directory: "/work/main/tests/triton")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!4 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!5 = distinct !DISubprogram(name: "layer_norm_rows", linkageName: "layer_norm_rows", scope: !1, file: !1, line: 129, type: !6, scopeLine: 129, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(cc: DW_CC_normal, types: !7)
!7 = !{}
!8 = !DILocation(line: 136, column: 24, scope: !5)
!9 = !DILocation(line: 137, column: 24, scope: !5)
!10 = !DILocation(line: 138, column: 16, scope: !5)
!11 = !DILocation(line: 139, column: 30, scope: !5)
!12 = !DILocation(line: 139, column: 24, scope: !5)
!13 = !DILocation(line: 139, column: 43, scope: !5)
!14 = !DILocation(line: 139, column: 16, scope: !5)
!15 = !DILocation(line: 139, column: 72, scope: !5)
!16 = !DILocation(line: 263, column: 15, scope: !17, inlinedAt: !19)
!17 = distinct !DILexicalBlockFile(scope: !5, file: !18, discriminator: 0)
!18 = !DIFile(filename: "standard.py", directory: "/work/main/.tools/triton/triton/language")
!19 = !DILocation(line: 293, column: 36, scope: !17, inlinedAt: !20)
!20 = !DILocation(line: 140, column: 18, scope: !21)
!21 = distinct !DILexicalBlockFile(scope: !5, file: !1, discriminator: 0)
!22 = !DILocation(line: 140, column: 31, scope: !5)
!23 = !DILocation(line: 141, column: 31, scope: !5)
!24 = !DILocation(line: 141, column: 37, scope: !5)
!25 = !DILocation(line: 142, column: 27, scope: !5)
!26 = !DILocation(line: 293, column: 36, scope: !17, inlinedAt: !27)
!27 = !DILocation(line: 142, column: 17, scope: !21)
!28 = !DILocation(line: 263, column: 15, scope: !17, inlinedAt: !26)
!29 = !DILocation(line: 142, column: 46, scope: !5)
!30 = !DILocation(line: 143, column: 31, scope: !5)
!31 = !DILocation(line: 143, column: 25, scope: !5)
!32 = !DILocation(line: 143, column: 17, scope: !5)
!33 = !DILocation(line: 144, column: 29, scope: !5)
!34 = !DILocation(line: 144, column: 16, scope: !5)
!35 = !DILocation(line: 145, column: 27, scope: !5)
!36 = !DILocation(line: 145, column: 16, scope: !5)
!37 = !DILocation(line: 146, column: 18, scope: !5)
!38 = !DILocation(line: 146, column: 25, scope: !5)
!39 = !DILocation(line: 146, column: 29, scope: !5)
!40 = !DILocation(line: 147, column: 21, scope: !5)
!41 = !DILocation(line: 147, column: 40, scope: !5)
!42 = !DILocation(line: 147, column: 51, scope: !5)
!43 = !DILocation(line: 147, column: 46, scope: !5)
!44 = !DILocation(line: 148, column: 24, scope: !5)
!45 = !DILocation(line: 148, column: 29, scope: !5)
!46 = !DILocation(line: 149, column: 24, scope: !5)
!47 = !DILocation(line: 149, column: 29, scope: !5)
!48 = !DILocation(line: 149, column: 4, scope: !5)

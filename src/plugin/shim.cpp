//===- shim.cpp - warpsmith's LLVM 22 pass plugin (C++ side) -------------===//
//
// The thin C++ half of libwarpsmith.so, the LLVM 22 pass plugin. It does four things:
//
//  1. Registers with the new pass manager (plugin API version 2, the five-field
//     PassPluginLibraryInfo of llvm/Plugins/PassPlugin.h):
//       - the function analysis `affine-divergence` (AffineDivergenceAnalysis),
//       - the printer `print<affine-divergence>` and `require<>`/`invalidate<>` for it,
//       - the module pass `warpsmith-trace-divergence` (for tests: the analysis's claims and a
//         trace of every claimed value on every lane, which tests/plugin_soundness.rs checks on
//         the PTX emulator after llc).
//     Every pass is marked required, so clang -O0 (optnone) functions are handled too.
//  2. Flattens one LLVM function (values, operands, blocks, LLVM CycleInfo) into the plain C
//     structs below and calls the Rust analysis (src/analysis/divergence/llvm.rs) through
//     `warpsmith_llvm_analyze`. The analysis itself is written once, in Rust.
//  3. Prints the result one line per argument and instruction: `<class>: <value>`.
//  4. The code-generation hook (PreCodeGenCallback, called by llc and clang before the back end):
//     for an NVPTX module compiled to assembly with spilling requested (-warpsmith-spill=N|auto|keep,
//     or WARPSMITH_SPILL_MAX_REGS), it runs the module's own TargetMachine codegen into a buffer,
//     hands the PTX to the Rust spilling pass (src/plugin/codegen.rs, `warpsmith_codegen_spill`)
//     and writes the result; if the pass fails it warns and writes LLVM's PTX unchanged. Without
//     the request, or for other targets and object files, it declines and LLVM runs as usual.
//
// The exported entry point `llvmGetPassPluginInfo` is a Rust function (symbols of this static
// library are not exported from a Rust cdylib); a static constructor here hands it
// `warpsmith_fill_plugin_info`. LLVM's own symbols stay undefined in the plugin and resolve
// against the libLLVM of the host (opt, llc, clang) when it is loaded.
//
// For modules whose target triple is not NVPTX the analysis does nothing and says so.
//
// Compiled with -fno-rtti (build.rs) so that the plugin also loads into rustc's LLVM, which has no
// RTTI: no dynamic_cast or typeid here (LLVM's isa/dyn_cast are fine).
//
// Options (cl::opt, given to opt/llc directly or to clang with -mllvm):
//   -affine-divergence-assume-1d            assume 1-D blocks when nvvm.reqntid is absent
//   -affine-divergence-assume-no-overflow   treat all integer arithmetic as nsw/nuw
//   -affine-divergence-block-dim=X[,Y[,Z]]  the block shape of every kernel
//   -warpsmith-trace-claims=PATH            warpsmith-trace-divergence: where the claims go
//   -warpsmith-trace-capacity=N             warpsmith-trace-divergence: records the trace holds
//   -warpsmith-spill=N|auto|keep|off        code-generation hook: spill to shared memory with
//                                           register target N / the next occupancy cliff / only
//                                           ptxas's local memory, at the same occupancy / not
//                                           at all (overrides WARPSMITH_SPILL_MAX_REGS)
//   -warpsmith-spill-verbose                one summary line per spilled kernel on stderr
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/CycleAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Argument.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace llvm;

// ---- The C ABI shared with src/plugin/mod.rs (keep in sync) -----------------------------------

extern "C" {
struct WsValue {
  uint32_t kind, block, width, flags, aux, first_op, num_ops;
};
struct WsOperand {
  uint32_t kind; // 0 value, 1 int, 2 uniform constant, 3 undef, 4 block, 5 scaled value
  uint32_t index;
  int64_t imm;
};
struct WsBlock {
  uint32_t first_succ, num_succs, cycle, branch_kind, branch_value;
};
struct WsCycle {
  uint32_t header, parent, depth, reducible, first_exit, num_exits;
};
struct WsFunction {
  const char *name;
  uint64_t name_len;
  uint32_t is_kernel;
  uint32_t has_reqntid;
  uint32_t reqntid[3];
  uint32_t has_block_dim;
  uint32_t block_dim[3];
  uint32_t assume_1d;
  uint32_t assume_no_wrap;
  const WsValue *values;
  uint64_t num_values;
  const WsOperand *operands;
  uint64_t num_operands;
  const WsBlock *blocks;
  uint64_t num_blocks;
  const WsCycle *cycles;
  uint64_t num_cycles;
  const uint32_t *lists;
  uint64_t num_lists;
};
struct WsResult {
  uint32_t cls;   // 0 undefined, 1 constant, 2 uniform, 3 constant-affine, 4 affine, 5 divergent
  uint32_t scope; // 0 warp, 1 block
  int64_t coef;
  int64_t base;
};

// Implemented in Rust (src/plugin/mod.rs).
int32_t warpsmith_llvm_analyze(const WsFunction *fn, WsResult *out_values,
                               uint32_t *out_branches, char *text, uint64_t text_cap);
uint64_t warpsmith_format_class(const WsResult *r, char *buf, uint64_t cap);
void warpsmith_register_plugin_info(void (*fill)(PassPluginLibraryInfo *));

// The code-generation hook (src/plugin/codegen.rs). Buffers are allocated by Rust and released
// with warpsmith_buffer_free.
struct WsBuffer {
  uint8_t *ptr;
  uint64_t len;
};
int32_t warpsmith_codegen_spill_requested(const char *option, uint64_t option_len);
int32_t warpsmith_codegen_spill(const char *ptx, uint64_t ptx_len, const char *arch,
                                uint64_t arch_len, const char *option, uint64_t option_len,
                                WsBuffer *out, WsBuffer *msg);
void warpsmith_buffer_free(WsBuffer *b);
}

namespace {

enum Kind : uint32_t {
  KArgument = 0,
  KPhi = 1,
  KAdd = 2,
  KSub = 3,
  KMul = 4,
  KShl = 5,
  KLShr = 6,
  KAShr = 7,
  KAnd = 8,
  KOr = 9,
  KXor = 10,
  KICmp = 11,
  KSelect = 12,
  KTrunc = 13,
  KZExt = 14,
  KSExt = 15,
  KCopy = 16,
  KGep = 17,
  KLoad = 18,
  KUniformOp = 19,
  KDivergent = 20,
  KVoid = 21,
  KSpecial = 22,
  KShuffleIdx = 23,
  KAddrSpaceCast = 24,
  KAlloca = 25,
};

enum Special : uint32_t {
  STidX = 0,
  STidY = 1,
  STidZ = 2,
  SNtidX = 3,
  SNtidY = 4,
  SNtidZ = 5,
  SLaneid = 6,
  SWarpsize = 7,
  SWarpUniform = 8,
  SBlockUniform = 9,
  SDivergent = 10,
};

enum Flag : uint32_t {
  FNsw = 1,
  FNuw = 2,
  FVolatile = 4,
  FAtomic = 8,
  FInvariant = 16,
  FKernelArg = 32,
};

constexpr uint32_t NoIndex = UINT32_MAX;

cl::opt<bool> Assume1d("affine-divergence-assume-1d",
                       cl::desc("affine-divergence: assume 1-D blocks when the kernel has no "
                                "nvvm.reqntid"),
                       cl::init(false));
cl::opt<bool> AssumeNoOverflow("affine-divergence-assume-no-overflow",
                               cl::desc("affine-divergence: treat integer arithmetic as nsw/nuw"),
                               cl::init(false));
cl::opt<std::string> BlockDim("affine-divergence-block-dim",
                              cl::desc("affine-divergence: block shape X[,Y[,Z]] of every kernel"),
                              cl::init(""));

/// Parses "x,y,z" (1 to 3 positive numbers); false when malformed.
bool parseDims(StringRef S, uint32_t Out[3]) {
  Out[0] = Out[1] = Out[2] = 1;
  SmallVector<StringRef, 3> Parts;
  S.split(Parts, ',');
  if (Parts.empty() || Parts.size() > 3)
    return false;
  for (size_t I = 0; I < Parts.size(); ++I) {
    unsigned V = 0;
    if (Parts[I].trim().getAsInteger(10, V) || V == 0 || V > 1024)
      return false;
    Out[I] = V;
  }
  return true;
}

/// The special-register / collective classification of an intrinsic call, or -1.
int specialOf(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::nvvm_read_ptx_sreg_tid_x:
    return STidX;
  case Intrinsic::nvvm_read_ptx_sreg_tid_y:
    return STidY;
  case Intrinsic::nvvm_read_ptx_sreg_tid_z:
    return STidZ;
  case Intrinsic::nvvm_read_ptx_sreg_ntid_x:
    return SNtidX;
  case Intrinsic::nvvm_read_ptx_sreg_ntid_y:
    return SNtidY;
  case Intrinsic::nvvm_read_ptx_sreg_ntid_z:
    return SNtidZ;
  case Intrinsic::nvvm_read_ptx_sreg_laneid:
    return SLaneid;
  case Intrinsic::nvvm_read_ptx_sreg_warpsize:
    return SWarpsize;
  case Intrinsic::nvvm_read_ptx_sreg_warpid:
  case Intrinsic::nvvm_read_ptx_sreg_smid:
  case Intrinsic::nvvm_vote_all:
  case Intrinsic::nvvm_vote_any:
  case Intrinsic::nvvm_vote_uni:
  case Intrinsic::nvvm_vote_ballot:
  case Intrinsic::nvvm_vote_all_sync:
  case Intrinsic::nvvm_vote_any_sync:
  case Intrinsic::nvvm_vote_uni_sync:
  case Intrinsic::nvvm_vote_ballot_sync:
  case Intrinsic::nvvm_activemask:
  case Intrinsic::nvvm_redux_sync_add:
  case Intrinsic::nvvm_redux_sync_and:
  case Intrinsic::nvvm_redux_sync_or:
  case Intrinsic::nvvm_redux_sync_xor:
  case Intrinsic::nvvm_redux_sync_max:
  case Intrinsic::nvvm_redux_sync_min:
  case Intrinsic::nvvm_redux_sync_umax:
  case Intrinsic::nvvm_redux_sync_umin:
  case Intrinsic::nvvm_redux_sync_fmax:
  case Intrinsic::nvvm_redux_sync_fmin:
  case Intrinsic::nvvm_redux_sync_fmax_abs:
  case Intrinsic::nvvm_redux_sync_fmin_abs:
  case Intrinsic::nvvm_match_all_sync_i32p:
  case Intrinsic::nvvm_match_all_sync_i64p:
    return SWarpUniform;
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_z:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_w:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_z:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_w:
  case Intrinsic::nvvm_read_ptx_sreg_ntid_w:
  case Intrinsic::nvvm_read_ptx_sreg_nwarpid:
  case Intrinsic::nvvm_read_ptx_sreg_nsmid:
  case Intrinsic::nvvm_read_ptx_sreg_gridid:
  case Intrinsic::nvvm_read_ptx_sreg_clusterid_x:
  case Intrinsic::nvvm_read_ptx_sreg_clusterid_y:
  case Intrinsic::nvvm_read_ptx_sreg_clusterid_z:
  case Intrinsic::nvvm_read_ptx_sreg_clusterid_w:
  case Intrinsic::nvvm_read_ptx_sreg_nclusterid_x:
  case Intrinsic::nvvm_read_ptx_sreg_nclusterid_y:
  case Intrinsic::nvvm_read_ptx_sreg_nclusterid_z:
  case Intrinsic::nvvm_read_ptx_sreg_nclusterid_w:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_z:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_ctaid_w:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_nctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_nctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_nctaid_z:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_nctaid_w:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank:
  case Intrinsic::nvvm_read_ptx_sreg_cluster_nctarank:
  case Intrinsic::nvvm_read_ptx_sreg_total_smem_size:
  case Intrinsic::nvvm_read_ptx_sreg_aggr_smem_size:
  case Intrinsic::nvvm_read_ptx_sreg_dynamic_smem_size:
  case Intrinsic::nvvm_barrier_cta_red_popc_all:
  case Intrinsic::nvvm_barrier_cta_red_popc_count:
  case Intrinsic::nvvm_barrier_cta_red_popc_aligned_all:
  case Intrinsic::nvvm_barrier_cta_red_popc_aligned_count:
  case Intrinsic::nvvm_barrier_cta_red_and_all:
  case Intrinsic::nvvm_barrier_cta_red_and_count:
  case Intrinsic::nvvm_barrier_cta_red_and_aligned_all:
  case Intrinsic::nvvm_barrier_cta_red_and_aligned_count:
  case Intrinsic::nvvm_barrier_cta_red_or_all:
  case Intrinsic::nvvm_barrier_cta_red_or_count:
  case Intrinsic::nvvm_barrier_cta_red_or_aligned_all:
  case Intrinsic::nvvm_barrier_cta_red_or_aligned_count:
    return SBlockUniform;
  default:
    return -1;
  }
}

/// Flattens one function for the Rust analysis.
struct Flattener {
  const DataLayout &DL;
  DenseMap<const Value *, uint32_t> Ids;
  DenseMap<const BasicBlock *, uint32_t> BlockIds;
  DenseMap<const Cycle *, uint32_t> CycleIds;
  std::vector<WsValue> Values;
  std::vector<WsOperand> Ops;
  std::vector<WsBlock> Blocks;
  std::vector<WsCycle> Cycles;
  std::vector<uint32_t> Lists;
  std::vector<const Value *> Order;

  explicit Flattener(const DataLayout &DL) : DL(DL) {}

  uint32_t widthOf(Type *T) const {
    if (T->isIntegerTy())
      return T->getIntegerBitWidth();
    if (T->isPointerTy())
      return DL.getPointerSizeInBits(T->getPointerAddressSpace());
    return 0;
  }

  WsOperand operand(const Value *V) const {
    auto It = Ids.find(V);
    if (It != Ids.end())
      return {0, It->second, 0};
    if (isa<UndefValue>(V)) // undef and poison
      return {3, 0, 0};
    if (const auto *CI = dyn_cast<ConstantInt>(V)) {
      if (CI->getBitWidth() <= 64)
        return {1, 0, CI->getSExtValue()};
      return {2, 0, 0};
    }
    return {2, 0, 0}; // globals, floats, null, constant expressions, metadata
  }

  void push(uint32_t Kind, const Value *V, uint32_t Block, uint32_t Flags, uint32_t Aux,
            ArrayRef<WsOperand> Operands) {
    WsValue W;
    W.kind = Kind;
    W.block = Block;
    W.width = widthOf(V->getType());
    W.flags = Flags;
    W.aux = Aux;
    W.first_op = Ops.size();
    W.num_ops = Operands.size();
    Ops.insert(Ops.end(), Operands.begin(), Operands.end());
    Values.push_back(W);
  }

  SmallVector<WsOperand, 4> allOperands(const Instruction &I) const {
    SmallVector<WsOperand, 4> R;
    for (const Use &U : I.operands())
      if (!isa<BasicBlock>(U.get()))
        R.push_back(operand(U.get()));
    return R;
  }

  void instruction(const Instruction &I, uint32_t B) {
    SmallVector<WsOperand, 4> O;
    uint32_t Flags = 0;
    if (const auto *OB = dyn_cast<OverflowingBinaryOperator>(&I)) {
      if (OB->hasNoSignedWrap())
        Flags |= FNsw;
      if (OB->hasNoUnsignedWrap())
        Flags |= FNuw;
    }
    if (const auto *Phi = dyn_cast<PHINode>(&I)) {
      for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
        O.push_back(operand(Phi->getIncomingValue(K)));
        auto BI = BlockIds.find(Phi->getIncomingBlock(K));
        O.push_back({4, BI == BlockIds.end() ? 0u : BI->second, 0});
      }
      return push(KPhi, &I, B, 0, 0, O);
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(&I)) {
      uint32_t K = KUniformOp;
      switch (BO->getOpcode()) {
      case Instruction::Add: K = KAdd; break;
      case Instruction::Sub: K = KSub; break;
      case Instruction::Mul: K = KMul; break;
      case Instruction::Shl: K = KShl; break;
      case Instruction::LShr: K = KLShr; break;
      case Instruction::AShr: K = KAShr; break;
      case Instruction::And: K = KAnd; break;
      case Instruction::Or: K = KOr; break;
      case Instruction::Xor: K = KXor; break;
      default: break;
      }
      return push(K, &I, B, Flags, 0, allOperands(I));
    }
    if (const auto *IC = dyn_cast<ICmpInst>(&I))
      return push(KICmp, &I, B, 0, IC->getPredicate(), allOperands(I));
    if (isa<SelectInst>(I))
      return push(KSelect, &I, B, 0, 0, allOperands(I));
    if (isa<TruncInst>(I))
      return push(KTrunc, &I, B, 0, 0, allOperands(I));
    if (isa<ZExtInst>(I))
      return push(KZExt, &I, B, 0, 0, allOperands(I));
    if (isa<SExtInst>(I))
      return push(KSExt, &I, B, 0, 0, allOperands(I));
    if (isa<AddrSpaceCastInst>(I))
      return push(KAddrSpaceCast, &I, B, 0, 0, allOperands(I));
    if (isa<BitCastInst>(I) || isa<PtrToIntInst>(I) || isa<IntToPtrInst>(I))
      return push(KCopy, &I, B, 0, 0, allOperands(I));
    if (const auto *Fr = dyn_cast<FreezeInst>(&I)) {
      // freeze undef: an arbitrary value on each lane.
      if (isa<UndefValue>(Fr->getOperand(0)))
        return push(KDivergent, &I, B, 0, 0, {});
      return push(KCopy, &I, B, 0, 0, allOperands(I));
    }
    if (const auto *GEP = dyn_cast<GetElementPtrInst>(&I)) {
      unsigned Bits = DL.getIndexTypeSizeInBits(GEP->getType());
      SmallMapVector<Value *, APInt, 4> Var;
      APInt Const(Bits, 0);
      if (GEP->getType()->isPointerTy() && Bits <= 64 &&
          GEP->collectOffset(DL, Bits, Var, Const)) {
        O.push_back(operand(GEP->getPointerOperand()));
        bool Ok = true;
        for (auto &KV : Var) {
          auto It = Ids.find(KV.first);
          if (It == Ids.end() || KV.second.getSignificantBits() > 64) {
            Ok = false;
            break;
          }
          O.push_back({5, It->second, KV.second.getSExtValue()});
        }
        O.push_back({1, 0, Const.getSExtValue()});
        if (Ok)
          return push(KGep, &I, B, 0, 0, O);
      }
      return push(KUniformOp, &I, B, 0, 0, allOperands(I));
    }
    if (const auto *LI = dyn_cast<LoadInst>(&I)) {
      if (LI->isVolatile())
        Flags |= FVolatile;
      if (LI->isAtomic())
        Flags |= FAtomic;
      if (LI->hasMetadata(LLVMContext::MD_invariant_load))
        Flags |= FInvariant;
      O.push_back(operand(LI->getPointerOperand()));
      return push(KLoad, &I, B, Flags, LI->getPointerAddressSpace(), O);
    }
    if (isa<AllocaInst>(I))
      return push(KAlloca, &I, B, 0, 0, {});
    if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
      return push(KDivergent, &I, B, 0, 0, {});
    if (const auto *CB = dyn_cast<CallBase>(&I)) {
      bool Void = I.getType()->isVoidTy();
      if (const Function *Callee = CB->getCalledFunction()) {
        if (Callee->isIntrinsic()) {
          Intrinsic::ID ID = Callee->getIntrinsicID();
          int S = specialOf(ID);
          if (S >= 0)
            return push(KSpecial, &I, B, 0, (uint32_t)S, {});
          if (ID == Intrinsic::nvvm_shfl_sync_idx_i32 || ID == Intrinsic::nvvm_shfl_sync_idx_f32 ||
              ID == Intrinsic::nvvm_shfl_sync_idx_i32p ||
              ID == Intrinsic::nvvm_shfl_sync_idx_f32p) {
            for (unsigned K = 0; K < CB->arg_size(); ++K)
              O.push_back(operand(CB->getArgOperand(K)));
            return push(KShuffleIdx, &I, B, 0, 0, O);
          }
          if (Void)
            return push(KVoid, &I, B, 0, 0, {});
          bool Sreg = Callee->getName().starts_with("llvm.nvvm.read.ptx.sreg.");
          if (!Sreg && Callee->doesNotAccessMemory() && !CB->isConvergent()) {
            for (unsigned K = 0; K < CB->arg_size(); ++K)
              O.push_back(operand(CB->getArgOperand(K)));
            return push(KUniformOp, &I, B, 0, 0, O);
          }
          return push(KSpecial, &I, B, 0, SDivergent, {});
        }
      }
      return push(Void ? KVoid : KDivergent, &I, B, 0, 0, {});
    }
    if (isa<UnaryOperator>(I) || isa<CastInst>(I) || isa<FCmpInst>(I) ||
        isa<ExtractValueInst>(I) || isa<InsertValueInst>(I) || isa<ExtractElementInst>(I) ||
        isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I))
      return push(KUniformOp, &I, B, 0, 0, allOperands(I));
    if (I.getType()->isVoidTy())
      return push(KVoid, &I, B, 0, 0, {});
    return push(KDivergent, &I, B, 0, 0, {});
  }

  void build(Function &F, CycleInfo &CI, bool IsKernel) {
    uint32_t N = 0;
    for (const Argument &A : F.args()) {
      Ids[&A] = N++;
      Order.push_back(&A);
    }
    uint32_t NB = 0;
    for (const BasicBlock &BB : F) {
      BlockIds[&BB] = NB++;
      for (const Instruction &I : BB) {
        Ids[&I] = N++;
        Order.push_back(&I);
      }
    }
    // Cycles, outer before inner.
    SmallVector<const Cycle *, 8> Work;
    for (const Cycle *C : CI.toplevel_cycles())
      Work.push_back(C);
    for (size_t K = 0; K < Work.size(); ++K) {
      const Cycle *C = Work[K];
      CycleIds[C] = K;
      for (const Cycle *Child : C->children())
        Work.push_back(Child);
    }
    for (const Cycle *C : Work) {
      WsCycle W;
      W.header = BlockIds.lookup(C->getHeader());
      const Cycle *P = C->getParentCycle();
      W.parent = P ? CycleIds.lookup(P) : NoIndex;
      W.depth = C->getDepth();
      W.reducible = C->isReducible() ? 1 : 0;
      SmallVector<BasicBlock *, 4> Exits;
      C->getExitBlocks(Exits);
      W.first_exit = Lists.size();
      W.num_exits = Exits.size();
      for (BasicBlock *E : Exits)
        Lists.push_back(BlockIds.lookup(E));
      Cycles.push_back(W);
    }
    for (const Argument &A : F.args())
      push(KArgument, &A, NoIndex, IsKernel ? FKernelArg : 0, 0, {});
    for (const BasicBlock &BB : F) {
      uint32_t B = BlockIds.lookup(&BB);
      for (const Instruction &I : BB)
        instruction(I, B);
      WsBlock W;
      W.first_succ = Lists.size();
      const Instruction *T = BB.getTerminator();
      uint32_t NS = 0;
      if (T)
        for (const BasicBlock *S : successors(&BB)) {
          Lists.push_back(BlockIds.lookup(S));
          ++NS;
        }
      W.num_succs = NS;
      const Cycle *C = CI.getCycle(&BB);
      W.cycle = C ? CycleIds.lookup(C) : NoIndex;
      W.branch_kind = 0;
      W.branch_value = NoIndex;
      if (T && NS > 1) {
        const Value *Cond = nullptr;
        if (const auto *Br = dyn_cast<BranchInst>(T)) {
          if (Br->isConditional())
            Cond = Br->getCondition();
        } else if (const auto *Sw = dyn_cast<SwitchInst>(T)) {
          Cond = Sw->getCondition();
        } else {
          W.branch_kind = 2; // indirectbr, callbr, invoke: unknown
        }
        if (Cond) {
          auto It = Ids.find(Cond);
          if (It != Ids.end()) {
            W.branch_kind = 1;
            W.branch_value = It->second;
          }
        }
      }
      Blocks.push_back(W);
    }
  }
};

/// The analysis result: the class of every argument and instruction, and of every branch.
struct AffineDivergenceResult {
  bool Analysed = false;
  std::string Skipped; // why nothing was analysed
  std::string Shape;
  std::vector<std::string> Notes;
  DenseMap<const Value *, WsResult> Classes;
  DenseMap<const BasicBlock *, uint32_t> Branches; // 0 uniform, 1 warp-uniform, 2 divergent

  bool invalidate(Function &, const PreservedAnalyses &PA,
                  FunctionAnalysisManager::Invalidator &);
};

struct AffineDivergenceAnalysis : AnalysisInfoMixin<AffineDivergenceAnalysis> {
  static AnalysisKey Key;
  using Result = AffineDivergenceResult;
  static StringRef name() { return "AffineDivergenceAnalysis"; }

  Result run(Function &F, FunctionAnalysisManager &FAM) {
    Result R;
    const Module *M = F.getParent();
    if (!M || !M->getTargetTriple().isNVPTX()) {
      std::string Triple = M ? M->getTargetTriple().str() : std::string("?");
      R.Skipped = "not an NVPTX module (triple '" + Triple + "'); nothing analysed";
      if (Triple.empty())
        R.Skipped += " (a module without a triple, such as Triton's `llir`, can be analysed "
                     "with opt -mtriple=nvptx64-nvidia-cuda)";
      return R;
    }
    if (F.isDeclaration()) {
      R.Skipped = "declaration";
      return R;
    }
    CycleInfo &CI = FAM.getResult<CycleAnalysis>(F);
    bool IsKernel = F.getCallingConv() == CallingConv::PTX_Kernel;
    Flattener Fl(M->getDataLayout());
    Fl.build(F, CI, IsKernel);

    WsFunction W{};
    StringRef Name = F.getName();
    W.name = Name.data();
    W.name_len = Name.size();
    W.is_kernel = IsKernel;
    if (F.hasFnAttribute("nvvm.reqntid")) {
      StringRef S = F.getFnAttribute("nvvm.reqntid").getValueAsString();
      W.has_reqntid = parseDims(S, W.reqntid);
    }
    if (!BlockDim.empty())
      W.has_block_dim = parseDims(BlockDim, W.block_dim);
    W.assume_1d = Assume1d;
    W.assume_no_wrap = AssumeNoOverflow;
    W.values = Fl.Values.data();
    W.num_values = Fl.Values.size();
    W.operands = Fl.Ops.data();
    W.num_operands = Fl.Ops.size();
    W.blocks = Fl.Blocks.data();
    W.num_blocks = Fl.Blocks.size();
    W.cycles = Fl.Cycles.data();
    W.num_cycles = Fl.Cycles.size();
    W.lists = Fl.Lists.data();
    W.num_lists = Fl.Lists.size();

    std::vector<WsResult> Out(Fl.Values.size());
    std::vector<uint32_t> Br(Fl.Blocks.size());
    std::vector<char> Text(4096);
    int32_t Rc = warpsmith_llvm_analyze(&W, Out.data(), Br.data(), Text.data(), Text.size());
    std::string Msg(Text.data());
    if (Rc != 0) {
      R.Skipped = "analysis failed: " + Msg;
      return R;
    }
    R.Analysed = true;
    StringRef Rest(Msg);
    while (!Rest.empty()) {
      auto [Line, Tail] = Rest.split('\n');
      if (Line.consume_front("shape "))
        R.Shape = Line.str();
      else if (!Line.empty())
        R.Notes.push_back(Line.str());
      Rest = Tail;
    }
    for (size_t K = 0; K < Fl.Order.size(); ++K)
      R.Classes[Fl.Order[K]] = Out[K];
    uint32_t NB = 0;
    for (const BasicBlock &BB : F)
      R.Branches[&BB] = Br[NB++];
    return R;
  }
};

AnalysisKey AffineDivergenceAnalysis::Key;

bool AffineDivergenceResult::invalidate(Function &, const PreservedAnalyses &PA,
                                        FunctionAnalysisManager::Invalidator &) {
  // Like UniformityInfo: nothing updates it incrementally.
  auto PAC = PA.getChecker<AffineDivergenceAnalysis>();
  return !PAC.preserved() && !PAC.preservedSet<AllAnalysesOn<Function>>();
}

std::string classText(const WsResult &R) {
  char Buf[128];
  uint64_t N = warpsmith_format_class(&R, Buf, sizeof(Buf));
  return std::string(Buf, N < sizeof(Buf) ? N : sizeof(Buf) - 1);
}

/// `print<affine-divergence>`: one line per argument and instruction.
struct AffineDivergencePrinterPass : PassInfoMixin<AffineDivergencePrinterPass> {
  raw_ostream &OS;
  explicit AffineDivergencePrinterPass(raw_ostream &OS) : OS(OS) {}
  static bool isRequired() { return true; }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    auto &R = FAM.getResult<AffineDivergenceAnalysis>(F);
    OS << "Affine divergence for function '" << F.getName() << "'";
    if (!R.Analysed) {
      OS << ": " << R.Skipped << "\n";
      return PreservedAnalyses::all();
    }
    OS << " (" << (F.getCallingConv() == CallingConv::PTX_Kernel ? "kernel" : "device function")
       << ", block shape " << R.Shape << "):\n";
    for (const std::string &N : R.Notes)
      OS << "note: " << N << "\n";
    auto line = [&](const Value &V, StringRef Label) {
      std::string S;
      raw_string_ostream SS(S);
      V.print(SS);
      OS << Label << ": " << StringRef(S).ltrim() << "\n";
    };
    for (const Argument &A : F.args())
      line(A, classText(R.Classes.lookup(&A)));
    for (const BasicBlock &BB : F) {
      OS << "block ";
      BB.printAsOperand(OS, false);
      OS << ":\n";
      for (const Instruction &I : BB) {
        if (!I.getType()->isVoidTy()) {
          line(I, classText(R.Classes.lookup(&I)));
        } else if (I.isTerminator() && I.getNumSuccessors() > 1) {
          uint32_t T = R.Branches.lookup(&BB);
          line(I, T == 2 ? "divergent branch"
                         : (T == 1 ? "warp-uniform branch" : "uniform branch"));
        } else {
          line(I, "void");
        }
      }
    }
    return PreservedAnalyses::all();
  }
};

// ---- The dynamic soundness check on LLVM IR ---------------------------------------------------

cl::opt<std::string> TraceClaims(
    "warpsmith-trace-claims",
    cl::desc("warpsmith-trace-divergence: write the claim of every traced value to this file "
             "(one line each: id, class, scope, coefficient, base, width, function, value)"),
    cl::value_desc("path"), cl::init(""));
cl::opt<unsigned> TraceCapacity("warpsmith-trace-capacity",
                                cl::desc("warpsmith-trace-divergence: records the trace holds"),
                                cl::init(1u << 16));

/// `warpsmith-trace-divergence` (a module pass, for tests): the LLVM IR counterpart of
/// src/analysis/divergence/soundness.rs. In every kernel the analysis has classed, each value it
/// does not call divergent (integers, pointers and floats of at most 64 bits, arguments
/// included) gets a trace record right after its definition (after the block's phis for a phi):
/// a slot taken with an atomic add on the module array `__warpsmith_trace` (global address
/// space; the emulator returns module variables after a run), then the value's id, the thread
/// and CTA, `%clock64` (the emulator's per-warp instruction counter, which the lanes of one
/// warp-instruction share), an iteration key and the value, in the PTX trace's record layout.
/// The iteration key mixes the iteration counts of the natural loops around the definition
/// (a counter phi in each loop header), so that block-level claims can be checked across the
/// warps of a CTA at the same dynamic instance; in a function with an irreducible cycle, which
/// has no such counts, the key is the clock with the top bit set, unique to each warp, so only
/// warp-level claims are checked there. The claims go to -warpsmith-trace-claims. The records
/// are written after the analysis ran, so they do not change what was claimed.
struct TraceDivergencePass : PassInfoMixin<TraceDivergencePass> {
  static bool isRequired() { return true; }

  static bool traceable(const Type *T) {
    if (T->isIntegerTy())
      return T->getIntegerBitWidth() <= 64;
    return T->isPointerTy() || T->isHalfTy() || T->isBFloatTy() || T->isFloatTy() ||
           T->isDoubleTy();
  }

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    LLVMContext &C = M.getContext();
    const DataLayout &DL = M.getDataLayout();
    Type *I64 = Type::getInt64Ty(C);
    uint64_t Cap = TraceCapacity;
    // 64-byte header (word 0: the record count), then 40-byte records; one spare slot takes
    // every record past the capacity.
    ArrayType *AT = ArrayType::get(I64, 8 + (Cap + 1) * 5);
    auto *G = new GlobalVariable(M, AT, false, GlobalValue::ExternalLinkage,
                                 ConstantAggregateZero::get(AT), "__warpsmith_trace", nullptr,
                                 GlobalValue::NotThreadLocal, /*AddressSpace=*/1);
    G->setAlignment(Align(8));
    std::string Claims;
    raw_string_ostream CS(Claims);
    uint32_t NextId = 0;
    for (Function &F : M) {
      if (F.isDeclaration() || F.getCallingConv() != CallingConv::PTX_Kernel)
        continue;
      auto &R = FAM.getResult<AffineDivergenceAnalysis>(F);
      if (!R.Analysed)
        continue;
      bool Reducible = true;
      for (const auto *Cy : FAM.getResult<CycleAnalysis>(F).toplevel_cycles())
        for (const auto *Sub : depth_first(Cy))
          Reducible &= Sub->isReducible();
      LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
      std::vector<std::pair<Value *, Instruction *>> Points;
      Instruction *Entry = &*F.getEntryBlock().getFirstInsertionPt();
      for (Argument &A : F.args())
        Points.push_back({&A, Entry});
      for (BasicBlock &BB : F)
        for (Instruction &I : BB)
          if (!I.isTerminator())
            Points.push_back({&I, isa<PHINode>(I) ? &*BB.getFirstInsertionPt() : I.getNextNode()});
      // Iteration counters only where every cycle is a natural loop (otherwise unused).
      DenseMap<const Loop *, Value *> Counters;
      if (Reducible)
        Counters = loopCounters(LI, I64);
      for (auto [V, At] : Points) {
        WsResult Cl = R.Classes.lookup(V);
        if (!traceable(V->getType()) || Cl.cls == 0 || Cl.cls == 5)
          continue;
        uint32_t Id = NextId++;
        unsigned Bits = V->getType()->isPointerTy() ? DL.getPointerSizeInBits(
                                                          V->getType()->getPointerAddressSpace())
                                                    : V->getType()->getPrimitiveSizeInBits();
        std::string Text;
        raw_string_ostream TS(Text);
        V->print(TS);
        CS << Id << "\t" << Cl.cls << "\t" << Cl.scope << "\t" << Cl.coef << "\t" << Cl.base
           << "\t" << Bits << "\t" << F.getName() << "\t" << StringRef(Text).trim() << "\n";
        Value *Key = nullptr;
        if (Reducible) {
          IRBuilder<> KB(At);
          Key = ConstantInt::get(I64, 0);
          SmallVector<const Loop *, 4> Nest;
          for (const Loop *L = LI.getLoopFor(At->getParent()); L; L = L->getParentLoop())
            Nest.push_back(L);
          for (auto It = Nest.rbegin(); It != Nest.rend(); ++It)
            Key = KB.CreateAdd(KB.CreateMul(Key, ConstantInt::get(I64, 0x9E3779B97F4A7C15ull)),
                               KB.CreateAdd(Counters.lookup(*It), ConstantInt::get(I64, 1)));
        }
        record(G, Cap, V, At, Id, Bits, DL, Key);
      }
      FAM.invalidate(F, PreservedAnalyses::none());
    }
    if (!TraceClaims.empty()) {
      std::error_code EC;
      raw_fd_ostream Out(TraceClaims, EC, sys::fs::OF_Text);
      if (EC)
        report_fatal_error(Twine("warpsmith-trace-divergence: ") + TraceClaims + ": " +
                           EC.message());
      Out << Claims;
    }
    return PreservedAnalyses::none();
  }

  /// An iteration counter for every natural loop: a phi in its header, 0 on entry and one more
  /// on every back edge. Made before any record, so that records see the counters.
  static DenseMap<const Loop *, Value *> loopCounters(LoopInfo &LI, Type *I64) {
    DenseMap<const Loop *, Value *> Out;
    for (Loop *L : LI.getLoopsInPreorder()) {
      BasicBlock *H = L->getHeader();
      IRBuilder<> B(&*H->begin());
      PHINode *Phi = B.CreatePHI(I64, pred_size(H), "ws.iter");
      B.SetInsertPoint(&*H->getFirstInsertionPt());
      Value *Next = B.CreateAdd(Phi, ConstantInt::get(I64, 1), "ws.iter.next");
      for (BasicBlock *P : predecessors(H))
        Phi->addIncoming(L->contains(P) ? Next : ConstantInt::get(I64, 0), P);
      Out[L] = Phi;
    }
    return Out;
  }

  /// The record of value `V` (`Bits` wide), before `At`; `Key` the iteration key (null: the
  /// clock with the top bit set).
  static void record(GlobalVariable *G, uint64_t Cap, Value *V, Instruction *At, uint32_t Id,
                     unsigned Bits, const DataLayout &DL, Value *Key) {
    IRBuilder<> B(At);
    LLVMContext &C = V->getContext();
    Type *I64 = Type::getInt64Ty(C);
    Value *X = V;
    if (X->getType()->isPointerTy())
      X = B.CreatePtrToInt(X, DL.getIntPtrType(X->getType()));
    else if (!X->getType()->isIntegerTy())
      X = B.CreateBitCast(X, IntegerType::get(C, Bits));
    X = B.CreateZExtOrTrunc(X, I64);
    auto sreg = [&](Intrinsic::ID I) { return B.CreateIntrinsic(I, {}); };
    Value *Tid = B.CreateOr(
        sreg(Intrinsic::nvvm_read_ptx_sreg_tid_x),
        B.CreateOr(B.CreateShl(sreg(Intrinsic::nvvm_read_ptx_sreg_tid_y), 10),
                   B.CreateShl(sreg(Intrinsic::nvvm_read_ptx_sreg_tid_z), 20)));
    Value *Cta = B.CreateAdd(
        sreg(Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
        B.CreateMul(sreg(Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                    B.CreateAdd(sreg(Intrinsic::nvvm_read_ptx_sreg_ctaid_y),
                                B.CreateMul(sreg(Intrinsic::nvvm_read_ptx_sreg_nctaid_y),
                                            sreg(Intrinsic::nvvm_read_ptx_sreg_ctaid_z)))));
    Value *Who = B.CreateOr(B.CreateZExt(Tid, I64), B.CreateShl(B.CreateZExt(Cta, I64), 32));
    Value *N = B.CreateAtomicRMW(AtomicRMWInst::Add, G, ConstantInt::get(I64, 1), MaybeAlign(8),
                                 AtomicOrdering::Monotonic);
    Value *CapV = ConstantInt::get(I64, Cap);
    Value *Slot = B.CreateSelect(B.CreateICmpULT(N, CapV), N, CapV);
    Value *Base = B.CreateAdd(B.CreateMul(Slot, ConstantInt::get(I64, 5)), ConstantInt::get(I64, 8));
    Value *Clock = sreg(Intrinsic::nvvm_read_ptx_sreg_clock64);
    if (!Key)
      Key = B.CreateOr(Clock, ConstantInt::get(I64, 1ull << 63));
    Value *Words[5] = {ConstantInt::get(I64, Id), Who, Clock, Key, X};
    for (unsigned K = 0; K < 5; ++K) {
      Value *P = B.CreateInBoundsGEP(I64, G, B.CreateAdd(Base, ConstantInt::get(I64, K)));
      B.CreateStore(Words[K], P);
    }
  }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback([](FunctionAnalysisManager &FAM) {
    FAM.registerPass([] { return AffineDivergenceAnalysis(); });
  });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "warpsmith-trace-divergence") {
          MPM.addPass(TraceDivergencePass());
          return true;
        }
        return false;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<affine-divergence>") {
          FPM.addPass(AffineDivergencePrinterPass(errs()));
          return true;
        }
        if (Name == "require<affine-divergence>") {
          FPM.addPass(RequireAnalysisPass<AffineDivergenceAnalysis, Function>());
          return true;
        }
        if (Name == "invalidate<affine-divergence>") {
          FPM.addPass(InvalidateAnalysisPass<AffineDivergenceAnalysis>());
          return true;
        }
        return false;
      });
}

// ---- The code-generation hook ----------------------------------------------------------------

cl::opt<std::string>
    SpillOpt("warpsmith-spill",
             cl::desc("warpsmith: spill NVPTX registers to shared memory when generating PTX "
                      "(N = register target, auto = next occupancy cliff, keep = only where "
                      "ptxas uses local memory, at the same occupancy, off = never; "
                      "default: WARPSMITH_SPILL_MAX_REGS)"),
             cl::value_desc("N|auto|keep|off"), cl::init(""));
cl::opt<bool> SpillVerbose("warpsmith-spill-verbose",
                           cl::desc("warpsmith: one summary line per spilled kernel on stderr"),
                           cl::init(false));

/// Releases a Rust buffer when it goes out of scope.
struct OwnedBuffer {
  WsBuffer B{nullptr, 0};
  ~OwnedBuffer() { warpsmith_buffer_free(&B); }
  StringRef str() const {
    return B.ptr ? StringRef(reinterpret_cast<const char *>(B.ptr), B.len) : StringRef();
  }
};

void warn(StringRef Msg) {
  WithColor::warning(errs(), "warpsmith") << "spilling skipped: " << Msg << "\n";
}

/// PreCodeGenCallback: true when the hook wrote the output itself.
bool preCodeGen(Module &M, TargetMachine &TM, CodeGenFileType FT, raw_pwrite_stream &OS) {
  if (!M.getTargetTriple().isNVPTX() || FT != CodeGenFileType::AssemblyFile)
    return false;
  const std::string &Opt = SpillOpt;
  if (!warpsmith_codegen_spill_requested(Opt.data(), Opt.size()))
    return false;

  // The same codegen pipeline llc and clang would run, into a buffer. The caller does not run
  // its own pipeline once this returns true (llc.cpp returns, clang's RunCodegenPipeline returns),
  // so the module may be consumed here: no clone. The library info is llc's (triple + -vector-
  // library); clang's -fno-builtin/-fveclib variants are not visible to a plugin (the lit tests
  // check that the PTX is byte-identical to clang's own at -O0 and -O3).
  SmallString<0> Ptx;
  {
    raw_svector_ostream Buf(Ptx);
    legacy::PassManager PM;
    PM.add(createTargetTransformInfoWrapperPass(TM.getTargetIRAnalysis()));
    TargetLibraryInfoImpl TLII(M.getTargetTriple(), TM.Options.VecLib);
    PM.add(new TargetLibraryInfoWrapperPass(TLII));
    if (TM.addPassesToEmitFile(PM, Buf, nullptr, CodeGenFileType::AssemblyFile)) {
      warn("the target cannot emit assembly through the legacy pass manager");
      return false; // nothing has run: the caller's own pipeline reports it
    }
    PM.run(M);
  }

  // The architecture for occupancy: the target machine's CPU, or (llc without -mcpu, whose module
  // header then says sm_30) the "target-cpu" clang put on the functions.
  std::string Arch = TM.getTargetCPU().str();
  for (const Function &F : M) {
    if (!Arch.empty())
      break;
    if (!F.isDeclaration() && F.hasFnAttribute("target-cpu"))
      Arch = F.getFnAttribute("target-cpu").getValueAsString().str();
  }
  OwnedBuffer Out, Msg;
  int32_t Rc = warpsmith_codegen_spill(Ptx.data(), Ptx.size(), Arch.data(), Arch.size(),
                                       Opt.data(), Opt.size(), &Out.B, &Msg.B);
  if (Rc == 0) {
    if (SpillVerbose)
      errs() << Msg.str();
    OS << Out.str();
  } else {
    warn(Msg.str());
    OS << Ptx;
  }
  return true;
}

extern "C" void warpsmith_fill_plugin_info(PassPluginLibraryInfo *Info) {
  Info->APIVersion = LLVM_PLUGIN_API_VERSION;
  Info->PluginName = "warpsmith";
  Info->PluginVersion = "0.1.0";
  Info->RegisterPassBuilderCallbacks = registerCallbacks;
  Info->PreCodeGenCallback = preCodeGen;
}

/// Hands the filler to the Rust entry point when the library is loaded.
struct Registrar {
  Registrar() { warpsmith_register_plugin_info(warpsmith_fill_plugin_info); }
} TheRegistrar;

} // namespace

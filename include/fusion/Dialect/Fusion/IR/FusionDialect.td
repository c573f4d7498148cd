//===- FusionDialect.td - the fusion dialect ---------------*- tablegen -*-===//
// The dialect definition shared by the op, attribute and pass .td files.
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_TD
#define FUSION_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Fusion_Dialect : Dialect {
  let name = "fusion";
  let cppNamespace = "::mlir::fusion";
  let summary = "Tensor fusions for NVIDIA GPUs, from definition to kernels";
  let description = [{
    The `fusion` dialect describes a chain of tensor operations once, with
    static or symbolic sizes, inside a `fusion.fusion` container. Later passes
    segment a fusion into `fusion.kernel` regions, attach a schedule to each,
    and lower each kernel to `gpu.func` plus a host-side launch plan.

    Conventions:
    - Broadcasting is explicit: element-wise ops require operands of one shape;
      use `fusion.broadcast_in_dim` or `fusion.expand` first.
    - Type promotion is explicit: element-wise ops require one element type;
      use `fusion.cast` first.
    - Dims are non-negative and in range; dynamic result sizes of shape-making
      ops are `index` operands, one per dynamic result dim, in order.
    - Scalars are builtin integer, float or index values (e.g. from
      `arith.constant` or a fusion argument).
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Fusion_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fusion_Dialect, mnemonic, traits>;

#endif // FUSION_DIALECT_TD

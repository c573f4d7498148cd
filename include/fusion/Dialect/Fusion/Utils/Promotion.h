//===- Promotion.h - PyTorch-like type promotion for frontends --*- C++ -*-===//
//
// The fusion dialect makes type promotion and broadcasting explicit: the
// operands of an element-wise op have one type and one shape, and frontends
// insert `fusion.cast` and `fusion.broadcast_in_dim` themselves. These helpers
// compute what PyTorch would (`torch.result_type` and NumPy-style
// broadcasting) and build those ops.
//
//===----------------------------------------------------------------------===//
//
// Element-type promotion (torch.result_type)
// ------------------------------------------
//
// Every operand has one of three roles, as in PyTorch:
//
//   role            | what it is here                   | PyTorch equivalent
//   ----------------+-----------------------------------+--------------------
//   Tensor          | a tensor of rank >= 1             | dimensioned tensor
//   ZeroDimTensor   | a tensor of rank 0                | 0-d tensor
//   WrappedNumber   | a builtin scalar (i1, iN, fN,     | Python bool, int,
//                   | index)                            | float
//
// and one of three categories, ordered bool < integer < floating:
//
//   category | element types
//   ---------+---------------------------------------------------------------
//   bool     | i1
//   integer  | i8, i16, i32, i64 (signless, read as signed); index (scalars)
//   floating | f16, bf16, f32, f64
//
// Two types of the same role combine as follows (symmetric):
//
//   a               | b                   | result
//   ----------------+---------------------+---------------------------------
//   T               | T                   | T
//   i1              | any T               | T
//   iM              | iN                  | i(max(M, N))
//   iN              | any float F         | F
//   f16             | bf16                | f32
//   fM              | fN (not f16/bf16)   | f(max(M, N))
//   f8E4M3FN/E5M2   | any other type      | error (null Type)
//
// A wrapped number takes part only through its category: a float scalar
// counts as the default float type f32, an integer scalar (of any width, or
// index) as i64, an i1 scalar as i1. The roles then combine by priority,
// Tensor > ZeroDimTensor > WrappedNumber: a role of lower priority changes the
// result only if its category is higher than that of all operands of higher
// priority, and then its own (promoted) type is used. Within one category the
// operand of higher priority wins regardless of width. Examples:
//
//   operands                              | result
//   --------------------------------------+--------
//   tensor i32, tensor f16                | f16
//   tensor bf16, tensor f16               | f32
//   tensor i1, tensor i8                  | i8
//   tensor i64, scalar f64                | f32   (scalar float -> default)
//   tensor f16, scalar f64                | f16   (same category: tensor wins)
//   tensor bf16, scalar i32               | bf16
//   tensor i8, scalar i64                 | i8
//   tensor i1, scalar i32                 | i64   (scalar int -> i64)
//   tensor i1, scalar i1                  | i1
//   tensor i32, 0-d tensor f64            | f64   (0-d tensors keep widths)
//   tensor i8, 0-d tensor i64             | i8
//   scalar f64, scalar f64                | f32   (scalars only: defaults)
//   scalar i8, scalar i16                 | i64
//   tensor f8E4M3FN, tensor f8E4M3FN      | f8E4M3FN
//   tensor f8E4M3FN, anything else        | null  (fp8 is a storage type;
//                                         |        cast explicitly)
//
// Any type outside the dialect's element types (and index for scalars) gives
// a null Type.
//
// Broadcasting
// ------------
//
// Tensor shapes align at their trailing dims (NumPy/PyTorch); the result has
// the largest rank. Per result dim: static sizes other than 1 must agree (a
// mismatch is an error naming both sizes); a size of 1 broadcasts; if no
// static size other than 1 is present and some operand's dim is dynamic, the
// result dim is dynamic and its size is `fusion.dim` of the first such
// operand. Dynamic dims are assumed to equal the result dim at run time
// (one that turns out to be 1 is not broadcast), including where the result
// dim is static. Scalars and rank-0 tensors broadcast to the whole result.
//
//   shapes                      | result
//   ----------------------------+-----------------------------------------
//   4x1, 3                      | 4x3
//   ?x1, ?                      | ?x? (sizes: dim 0 of each operand)
//   ?x3, 4x1                    | 4x3
//   4, 5                        | error: "... size 4 ... size 5"
//
//===----------------------------------------------------------------------===//
#ifndef FUSION_DIALECT_FUSION_UTILS_PROMOTION_H
#define FUSION_DIALECT_FUSION_UTILS_PROMOTION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::fusion {

/// How an operand takes part in promotion (see the table above).
enum class PromotionRole {
  /// A tensor of rank >= 1 (PyTorch's dimensioned tensor).
  Tensor,
  /// A tensor of rank 0.
  ZeroDimTensor,
  /// A builtin scalar (PyTorch's wrapped number, e.g. a Python float).
  WrappedNumber,
};

/// One operand of a promotion: its element type (or scalar type) and role.
struct PromotionOperand {
  Type type;
  PromotionRole role = PromotionRole::Tensor;
};

/// The common element type of `operands` under PyTorch's rules
/// (`torch.result_type`), or a null Type if there is none (fp8 mixed with
/// another type, or a type the dialect does not support). Returns a null Type
/// for an empty list.
Type promoteElementTypes(ArrayRef<PromotionOperand> operands);

/// The common element type of `a` and `b`; a flag set means that operand is a
/// scalar (a wrapped number), otherwise a dimensioned tensor. Null if there
/// is none.
Type promoteElementTypes(Type a, Type b, bool aIsScalar = false,
                         bool bIsScalar = false);

/// Makes `operands` (ranked tensors and builtin scalars, in any mix) ready
/// for one element-wise op: promotes their element types as above (builtin
/// scalars are wrapped numbers, rank-0 tensors 0-d tensors), then inserts
/// `fusion.cast` for tensors (arith casts for scalars) and
/// `fusion.broadcast_in_dim` to the common broadcast shape, at `b`'s
/// insertion point. Returns the new values in operand order, all of one
/// tensor type, or all of one scalar type if every operand is a scalar.
/// Fails, with an error at `loc` and without building anything, if an
/// operand is neither a ranked tensor nor a builtin scalar, if the element
/// types do not promote, or if static dims do not broadcast. An empty
/// `operands` gives an empty result.
FailureOr<SmallVector<Value>> promoteOperands(OpBuilder &b, Location loc,
                                              ValueRange operands);

} // namespace mlir::fusion

#endif // FUSION_DIALECT_FUSION_UTILS_PROMOTION_H

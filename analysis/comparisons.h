// Comparisons as the model means them. A mask is often written without a comparison op: the
// zero test of a shifted value (`(1.0 - q).to(torch.bool)`, `(q - c) != 0`) is the comparison
// of q with c in disguise. Rules that look for comparisons see both spellings through here.
#pragma once

#include <optional>
#include <string>

#include "ir/ir.h"

namespace qlint::analysis {

// aten::eq/ne/lt/le/gt/ge and their in-place forms.
bool is_comparison_op(const std::string& kind);

// Ops whose integer (or bool) result is a decision taken on float values, as a comparison's is:
// which element is largest (argmax, max over a dim), the k largest (topk), which boxes NMS keeps,
// a bucket, a cast to an integer or bool dtype. Quantization moves the values, so these
// results change where values are close to each other or to a boundary. The output that holds
// that result, or -1 for other ops; the caller checks that the op has it (`max` over a dim has
// two outputs, `max` of a whole tensor one), and for casts that the result is not float.
int decision_output(const std::string& kind);
bool is_cast_op(const std::string& kind);
// Of those, the ops whose result is a set of indices in an order of no meaning (topk's k largest,
// whose order among equals is arbitrary, with sorted=False any; the boxes NMS keeps): compared as
// sets. A full sort or argsort is left to what reads it: its order among near-equal values
// (ties) changes with any rounding, and is no decision until a slice, topk or NMS takes one.
bool picks_a_set(const std::string& kind);

// `x[x < 0] = 0`, `x.masked_fill(x > 6, 6)`, `torch.where(x < 0, 0, x)`: an ordering comparison
// with a constant whose every use writes that constant into the tensor compared where it holds,
// a clamp written by hand (public round 29's CenterTrack decode: `wh[wh < 0] = 0`). A flip there
// moves the value by no more than the rounding that flipped it: no decision, and no mask of data.
bool is_hand_written_clamp(const ir::Node& comparison);

// A zero test of `compared - constant`: true where compared == constant (`equal`), or
// where it differs (`!equal`).
struct DisguisedComparison {
  const ir::Value* compared = nullptr;
  double constant = 0;
  bool equal = false;
  const ir::Node* reader = nullptr;  // the node reading `compared` (the shift, or its `neg`)
  int operand = 0;                   // `compared`'s place among the reader's operands
};

// The comparison this node makes in disguise, if it is a zero test of a shifted value.
std::optional<DisguisedComparison> disguised_comparison(const ir::Node& node);

// `(1.0 - m) * -10000.0` (BERT's extended attention mask; also `* torch.finfo(dtype).min`): a 0/1
// mask made an additive bias, 0 where m is 1 and hugely negative elsewhere. Like `m == 1` it
// needs the 1s exact: a 1 rounded to 0.996 biases a kept token by -1.4e36. When `node` is the
// multiply that makes such a bias: the comparison with 1 it makes in disguise (`equal`: the bias
// is 0 where m == 1), and the factor.
struct MaskingBias {
  DisguisedComparison mask;
  double factor = 0;  // -10000, finfo(float32).min: |factor| >= 1000
};
std::optional<MaskingBias> masking_bias(const ir::Node& node);

}  // namespace qlint::analysis

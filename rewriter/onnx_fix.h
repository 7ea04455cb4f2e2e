// `qlint --fix` on an ONNX QDQ model (docs/onnx.md): the rules' findings fixed as ONNX graph
// edits whose float results are the original's by construction, in rounds until nothing is left
// to fix, the result checked by ONNX's checker and written atomically with every other field of
// the model (metadata, external data, doc strings) as it was:
// - a comparison of a quantized value (eq-nonzero-const) reads the float input of the
//   QuantizeLinear instead, through copies of the views between (Gather, Slice, Unsqueeze, ...);
// - a 0/1 mask cast from bool that meets quantized data with no quant point of its own
//   (unquantized-operand) gets a QDQ pair of scale 1 and zero point 0, where 0 and 1 are exact.
// A QuantizeLinear/DequantizeLinear pair is the identity in float, so neither changes what the
// float model computes. Not simulated: qlint does not run ONNX models yet. No LibTorch.
#pragma once

#include <string>

#include "rewriter/rewriter.h"

namespace qlint::onnx {

// Uses `options`' unsafe, write, output, stubs and filter; throws rewriter::FixError (one line)
// when the model cannot be read, fixed or written, and then writes nothing.
rewriter::FixResult fix_onnx(const std::string& path, const rewriter::FixOptions& options);

}  // namespace qlint::onnx

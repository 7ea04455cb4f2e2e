// Reads an ONNX model (a QAT model exported by torch.onnx.export: QuantizeLinear/DequantizeLinear
// pairs, "QDQ") into qlint's IR, in the vocabulary the TorchScript importer uses, so the analyses
// and rules see one kind of graph (docs/onnx.md):
// - the model is checked by ONNX's checker and typed by its shape inference (Debian's libonnx);
// - a QDQ pair on an activation becomes a quant point: a prim::CallMethod on a QuantStub-like
//   instance named after the pair's scale (`quant.activation_post_process.scale` is `self.quant`,
//   as in the QAT model), with the scale, zero point and range it states as the call's
//   attributes; two pairs that share a scale are one quant point called twice;
// - a QDQ pair on an initializer (a weight's fake quant) is the weight: initializers and Constant
//   nodes are prim::Constant tensors (their values kept when small: scales, thresholds);
// - ONNX ops become the ATen ops PyTorch exported them from (Equal is aten::eq, Cast aten::to,
//   Concat aten::cat of a list, a Gather of one index aten::select), with ATen's schema; other
//   ops keep their name (`onnx::Conv`); If and Loop become prim::If and prim::Loop;
// - a node's location is the innermost frame outside PyTorch of the Python stack that
//   torch.onnx.export(..., verbose=True) writes into its doc_string; the node's name is kept
//   (attribute `onnx_node`) for models exported without it.
// No LibTorch.
#pragma once

#include <string>

#include "ir/import_error.h"
#include "ir/ir.h"

namespace onnx {  // Debian's libonnx (ONNX_NAMESPACE)
class ModelProto;
}

namespace qlint::onnx {

// Throws ir::ImportError (one line, without the file name) for anything that is not a valid ONNX
// model: unreadable, not a ModelProto, rejected by ONNX's checker, external data missing or
// outside the model's directory.
ir::Model import_onnx(const std::string& path);

// The same on a model's bytes (`path` names it, and its directory holds external data); for
// the fuzzer.
ir::Model import_onnx_bytes(const std::string& bytes, const std::string& path);

// The model in `path`, parsed but not checked or imported (the fixer edits it). Throws
// ir::ImportError as import_onnx does for a file that is no ModelProto.
void read_onnx_file(const std::string& path, ::onnx::ModelProto& proto);

// The same on a parsed model, left as it is (the fixer's edited model). Tensors stored outside it
// are resolved against `path`'s directory; ONNX's checker then resolves any that stay outside
// against the working directory.
ir::Model import_onnx_proto(const ::onnx::ModelProto& proto, const std::string& path);

}  // namespace qlint::onnx

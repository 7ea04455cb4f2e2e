// Reads an FX graph exported by qlint's exporter (python/qlint_fx.py, format "qlint-fx",
// docs/fx.md) into qlint's IR, in the vocabulary the TorchScript importer uses, so the
// analyses and rules see one kind of graph: stubs become prim::CallMethod on a Module<path>
// value, Python operators and torch functions become aten:: ops, indexing becomes the
// aten::slice/select/unsqueeze chain TorchScript would build, literals become prim::Constant.
// Nodes keep the Python function they come from as the attribute `scope`, and the instance
// path of that function's `self` as `module` (absent when `self` is no module of the model):
// FX inlines submodules into one graph, but a source edit must not mix two functions'
// variables, and a new stub belongs to the module whose code uses it.
// No LibTorch: the file is plain JSON.
#pragma once

#include <string>

#include "ir/import_error.h"
#include "ir/ir.h"

namespace qlint::fx {

// Whether qlint reads this file as an FX export: its name ends in ".json".
bool is_fx_export(const std::string& path);

// Throws ir::ImportError (one line, without the file name) for anything that is not a valid
// FX export: unreadable, not JSON, another JSON document, a newer format version, a node
// that names an unknown node.
ir::Model import_fx(const std::string& path);

// The same on an export's text (`path` names it in the model); for the fuzzer.
ir::Model import_fx_text(const std::string& text, const std::string& path);

}  // namespace qlint::fx

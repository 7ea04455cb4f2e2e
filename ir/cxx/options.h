// What the C++ front end needs besides the code: the project's own quantize functions and how to
// learn whether a TorchScript model's outputs carry quantization. Clang-free, so that the
// command line can fill it in without Clang's headers.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace qlint::cxx {

// What qlint's TorchScript analysis says of an archive's outputs: quantized or not, or nullopt
// with why it cannot tell (the archive is not there, or cannot be read).
struct ArchiveVerdict {
  std::optional<bool> quantized;
  std::string unread;
  // When forward returns a tuple, or a list it builds in sight (`[boxes, classes]`): whether each
  // element carries quantization. A bool or integer element (a mask `scores > t`, class ids) does
  // not, whatever the model quantizes; a dict element does when any of its values does.
  std::vector<bool> elements_quantized;
  // When forward returns a dict with constant keys (`{"scores": s, "labels": l}`): whether each
  // key's value carries quantization, so that `toGenericDict().at("labels")` of int64 class ids
  // is exact. Empty when the outputs are no such dict.
  std::map<std::string, bool> keys_quantized;
  // Whether forward returns one tensor: code that reads an element of a tuple of its outputs
  // (`.toTuple()->elements()[2]`) was written for another archive (public C++ round 25).
  bool returns_tensor = false;
};

// A function of another file of the project that returns a model's outputs, as the lowering of
// its own file saw them (ir/cxx/importer.cpp carries them from file to file): a call of it
// elsewhere is that model's run.
struct ReturnedModel {
  std::string function;  // as the user writes it: "Net::predict"
  std::string where;     // the model's run in its file: "net.cpp:3"
  std::string archive;   // the archive it runs there; "" when not known there
  std::string why;       // with no archive: why not, for the note at the call
  // The element of the model's outputs the function returns (`.toTuple()->elements()[2]`, a
  // vector's `front()`), kLast for the last (a vector's `back()`), kWhole for the outputs as they are.
  static constexpr int64_t kWhole = -1;
  static constexpr int64_t kLast = -2;
  int64_t element = kWhole;
};

struct Options {
  // Functions that quantize their first argument (a toolchain's own quantize call), by
  // qualified name or a `::`-separated suffix of it: "quantize" or "tc::quantize".
  std::vector<std::string> quant_functions;
  // Whether the outputs of the TorchScript archive at this path carry quantization (qlint's
  // TorchScript analysis). Unset: model outputs are plain values.
  std::function<ArchiveVerdict(const std::string& archive)> archive_quantized;
  // Archive paths for `torch::jit::load(path)` calls whose path is not a string literal, by
  // the variable or parameter the path is in ("model_path=models/s1.pt").
  std::vector<std::string> archives;
  // A bare `--archive NAME` that names a parameter or local of several functions (in one checked
  // file or across them: two classes' `model_path`): NAME -> their qualified names ("Det::Det::
  // model_path, Reid::Reid::model_path"). Applied to none; the qualified name is applied.
  std::map<std::string, std::string> ambiguous_names;
  // The functions defined in other files that return a model's outputs, by function_key (their
  // qualified name and parameter types), and the model fields other files load, by
  // model_field_key (`function` is the field's qualified name, `where` the load).
  std::map<std::string, ReturnedModel> returned_models;
  // The parameters of this file's functions that calls in other files pass a model's outputs to
  // (`to_image(flow)` in main.cpp for `to_image` of viz.cpp), by function_key, then the
  // parameter's index: the run whose outputs they are.
  std::map<std::string, std::map<size_t, ReturnedModel>> passed_models;
};

}  // namespace qlint::cxx

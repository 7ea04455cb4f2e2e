// Reading simulation inputs: torch.save files (a tensor, or a tuple, list or dict of them)
// and seeded random tensors.
#include <torch/csrc/jit/serialization/pickle.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/archive_check.h"
#include "ir/import_error.h"
#include "ir/input_file.h"
#include "sim/libtorch.h"

namespace qlint::sim {

namespace {

namespace jit = torch::jit;
using c10::IValue;

std::vector<std::string> forward_argument_names(jit::Module& module) {
  const auto& schema = module.get_method("forward").function().getSchema();
  std::vector<std::string> names;
  for (size_t i = 1; i < schema.arguments().size(); ++i) names.push_back(schema.arguments()[i].name());
  return names;
}

IValue read_torch_save(const std::string& file) {
  try {
    // A regular file (never a FIFO), and for the zip format, a directory within the limits:
    // LibTorch allocates what the zip directory and the pickle's length fields say.
    ir::check_regular_file(file, ir::limits().archive_bytes, "archive-bytes");
    std::string magic(4, '\0');
    std::ifstream(file, std::ios::binary).read(magic.data(), 4);
    if (magic == std::string("PK\x03\x04", 4)) ir::read_zip_directory_of(file);
  } catch (const ir::ImportError& e) {
    throw SimError(file + ": " + e.what());
  }
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) throw SimError(file + ": is empty, not a torch.save file");
  try {
    return jit::pickle_load(bytes);
  } catch (const std::bad_alloc&) {
    throw SimError(file + ": is not a torch.save file qlint can read (it asks for more memory than there is)");
  } catch (const std::exception& e) {
    // Python pickles a one-entry dict with SETITEM, which LibTorch 1.13's unpickler lacks.
    if (std::string(e.what()).find("Unknown opcode for unpickling at 0x73") != std::string::npos)
      throw SimError(file +
                     ": holds a dict with a single entry, which LibTorch 1.13 cannot read; "
                     "save the tensor itself, or a tuple or list of tensors");
    throw SimError(file + ": is not a torch.save file of tensors (save inputs with torch.save(x, \"" +
                   std::filesystem::path(file).filename().string() + "\"))");
  }
}

namespace {

// A dict argument as forward declares it. The unpickler gives a dict of a torch.save file the
// types Dict[Any, Any], and forward refuses that for `Dict[str, Tensor]` (a point-cloud batch
// dict); with string keys and tensor values only, it becomes exactly that.
IValue typed_argument(const IValue& v) {
  if (!v.isGenericDict()) return v;
  c10::Dict<std::string, at::Tensor> typed;
  for (const auto& entry : v.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) return v;
    typed.insert(entry.key().toStringRef(), entry.value().toTensor());
  }
  return IValue(typed);
}

}  // namespace

Batch batch_from(const IValue& v, const std::vector<std::string>& names, const std::string& file) {
  Batch batch;
  if (v.isTensor()) {
    batch.push_back(v);
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) batch.push_back(typed_argument(e));
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) batch.push_back(typed_argument(e));
  } else if (v.isGenericDict()) {
    auto dict = v.toGenericDict();
    for (const auto& name : names) {
      auto it = dict.find(IValue(name));
      if (it == dict.end()) throw SimError(file + ": has no entry for the model's input '" + name + "'");
      batch.push_back(it->value());
    }
  } else {
    throw SimError(file + ": holds a " + v.tagKind() + ", not a tensor, or a tuple, list or dict of tensors");
  }
  if (batch.size() != names.size())
    throw SimError(file + ": holds " + std::to_string(batch.size()) + " input(s) but the model's forward takes " +
                   std::to_string(names.size()));
  return batch;
}

// One random input: its shape and what it holds ("1x8", "4x10:bool", "4x10:int64").
struct RandomInput {
  std::vector<int64_t> shape;
  std::string dtype = "float";
};

constexpr const char* kShapesExample = "1x2x4x4,1x8 or 4x10:bool";

RandomInput parse_random_input(const std::string& one, const std::string& spec) {
  RandomInput input;
  std::string dims_text = one;
  if (const size_t colon = one.find(':'); colon != std::string::npos) {
    dims_text = one.substr(0, colon);
    input.dtype = one.substr(colon + 1);
    if (input.dtype != "float" && input.dtype != "bool" && input.dtype != "int64")
      throw SimError("--random-input: '" + input.dtype + "' in '" + spec +
                     "' is no dtype qlint makes (float, bool, int64)");
  }
  std::stringstream dims(dims_text);
  std::string d;
  while (std::getline(dims, d, 'x')) {
    char* end = nullptr;
    long long n = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end != '\0' || n <= 0)
      throw SimError("--random-input: '" + spec + "' is not a list of shapes such as " + kShapesExample);
    input.shape.push_back(n);
  }
  if (input.shape.empty())
    throw SimError("--random-input: '" + spec + "' is not a list of shapes such as " + kShapesExample);
  return input;
}

std::vector<RandomInput> parse_random_inputs(const std::string& spec) {
  std::vector<RandomInput> inputs;
  std::stringstream tensors(spec);
  std::string one;
  while (std::getline(tensors, one, ',')) inputs.push_back(parse_random_input(one, spec));
  if (inputs.empty()) throw SimError("--random-input: no shape given");
  return inputs;
}

// Normal floats; a bool mask true at half its places; int64 whole numbers 0..9 (class ids,
// small indices).
at::Tensor random_tensor(const RandomInput& input) {
  if (input.dtype == "bool") return at::rand(input.shape) < 0.5;
  if (input.dtype == "int64") return at::randint(0, 10, input.shape, at::kLong);
  return at::randn(input.shape);
}

}  // namespace

std::vector<Batch> load_batches(jit::Module& module, const Inputs& inputs) {
  const std::vector<std::string> names = forward_argument_names(module);
  std::vector<Batch> batches;
  for (const auto& file : inputs.files) batches.push_back(batch_from(read_torch_save(file), names, file));
  if (inputs.files.empty() && inputs.random_shapes.empty())
    throw SimError("no inputs: give --input FILE or --random-input SHAPES");
  if (inputs.random_shapes.empty()) return batches;
  const std::vector<RandomInput> random = parse_random_inputs(inputs.random_shapes);
  if (random.size() != names.size())
    throw SimError("--random-input: " + std::to_string(random.size()) +
                   " shape(s) given but the model's forward takes " + std::to_string(names.size()));
  at::manual_seed(inputs.seed);
  for (int b = 0; b < inputs.random_batches; ++b) {
    Batch batch;
    for (const auto& input : random) batch.push_back(random_tensor(input));
    batches.push_back(batch);
  }
  return batches;
}

std::string random_inputs_hint(const Inputs& inputs) {
  if (inputs.random_shapes.empty() || inputs.random_shapes.find(':') != std::string::npos) return "";
  return " (--random-input made every input a float tensor: give a bool or integer input its dtype, e.g. "
         "`4x10:bool` or `4x10:int64` for whole numbers 0..9, or give real inputs with --input)";
}

}  // namespace qlint::sim

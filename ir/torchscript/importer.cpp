#include "ir/torchscript/importer.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/print_handler.h>
#include <torch/script.h>
#include <torch/version.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "ir/display.h"
#include "ir/input_file.h"
#include "ir/script_error.h"
#include "ir/timings.h"
#include "ir/torchscript/module_import.h"
#include "ir/torchscript/source_location.h"
#include "ir/verifier.h"

namespace qlint::torchscript {

namespace {

namespace jit = torch::jit;

// Tensors of at most this many elements keep their values in the IR (a constant compared
// against is usually a scalar-like tensor); larger ones keep only dtype and shape.
constexpr int64_t kMaxConstantElements = 64;

ir::DType convert_dtype(at::ScalarType t) {
  using S = at::ScalarType;
  using D = ir::DType;
  switch (t) {
    case S::Bool:
      return D::Bool;
    case S::Byte:
      return D::UInt8;
    case S::Char:
      return D::Int8;
    case S::Short:
      return D::Int16;
    case S::Int:
      return D::Int32;
    case S::Long:
      return D::Int64;
    case S::Half:
      return D::Float16;
    case S::BFloat16:
      return D::BFloat16;
    case S::Float:
      return D::Float32;
    case S::Double:
      return D::Float64;
    case S::QInt8:
      return D::QInt8;
    case S::QUInt8:
      return D::QUInt8;
    case S::QInt32:
      return D::QInt32;
    default:
      return D::Unknown;
  }
}

ir::Attr tensor_attr(const at::Tensor& t) {
  ir::Attr a;
  a.kind = ir::Attr::Kind::Tensor;
  a.dtype = convert_dtype(t.scalar_type());
  a.ints = t.sizes().vec();
  if (t.numel() <= kMaxConstantElements && !t.is_quantized()) {
    at::Tensor flat = t.detach().to(at::kDouble).contiguous().view({-1});
    const double* data = flat.data_ptr<double>();
    a.floats.assign(data, data + flat.numel());
  }
  return a;
}

ir::Attr ivalue_attr(const c10::IValue& v) {
  if (v.isBool()) return ir::Attr::of_bool(v.toBool());
  if (v.isInt()) return ir::Attr::of_int(v.toInt());
  if (v.isDouble()) return ir::Attr::of_float(v.toDouble());
  if (v.isString()) return ir::Attr::of_str(v.toStringRef());
  if (v.isNone()) return ir::Attr::none();
  if (v.isTensor()) return tensor_attr(v.toTensor());
  if (v.isIntList()) {
    ir::Attr a;
    a.kind = ir::Attr::Kind::Ints;
    a.ints = v.toIntVector();
    return a;
  }
  if (v.isDoubleList()) {
    ir::Attr a;
    a.kind = ir::Attr::Kind::Floats;
    a.floats = v.toDoubleVector();
    return a;
  }
  if (v.isDevice()) return ir::Attr::of_str(v.toDevice().str());
  // Other constants (tuples, dtypes as ints are covered above) keep a readable spelling.
  std::ostringstream ss;
  ss << v;
  return ir::Attr::of_str(ss.str());
}

std::optional<ir::Attr> node_attr(const jit::Node& n, jit::Symbol name) {
  using K = jit::AttributeKind;
  switch (n.kindOf(name)) {
    case K::i:
      return ir::Attr::of_int(n.i(name));
    case K::f:
      return ir::Attr::of_float(n.f(name));
    case K::s:
      return ir::Attr::of_str(n.s(name));
    case K::t:
      return tensor_attr(n.t(name));
    case K::ival:
      return ivalue_attr(n.ival(name));
    case K::is: {
      ir::Attr a;
      a.kind = ir::Attr::Kind::Ints;
      a.ints = n.is(name);
      return a;
    }
    case K::fs: {
      ir::Attr a;
      a.kind = ir::Attr::Kind::Floats;
      a.floats = n.fs(name);
      return a;
    }
    default:
      return std::nullopt;
  }
}

class Importer {
 public:
  Importer(jit::Module root, ir::Model& model) : root_(std::move(root)), model_(model) {}

  void run() {
    register_modules();
    if (!root_.find_method("forward"))
      throw ImportError("has no forward method; qlint starts from the model's forward");
    enqueue_method("", "forward");
    while (!pending_.empty()) {
      Pending next = pending_.front();
      pending_.pop_front();
      import_function(next);
    }
  }

 private:
  // Nodes of one statement share their range in the archive's code: its user location (read
  // from the debug info, LibTorch's slowest part of the import) is looked up once.
  ir::SourceLoc location_of(const jit::Node& n) {
    const jit::SourceRange& own = n.sourceRange();
    if (!own.source()) return source_location(n, model_.source_lines);
    auto key = std::make_tuple(own.source().get(), own.start(), own.end());
    auto [it, inserted] = locations_.try_emplace(key);
    if (inserted) it->second = source_location(n, model_.source_lines);
    return it->second;
  }

  struct Pending {
    std::string module_path;
    std::string method;
    std::shared_ptr<jit::Graph> graph;
    bool is_method;  // its first input is `self`
  };

  void register_modules() {
    model_.modules.push_back({"", root_.type()->name()->qualifiedName(), "", 0});
    modules_.emplace("", root_);
    for (const auto& child : root_.named_modules()) {
      if (child.name.empty()) continue;
      model_.modules.push_back({child.name, child.value.type()->name()->qualifiedName(), "", 0});
      modules_.emplace(child.name, child.value);
    }
    for (const auto& [path, module] : modules_) {
      auto [it, first] = path_of_type_.try_emplace(module.type().get(), path);
      if (!first) it->second = std::nullopt;  // several instances of the type
    }
  }

  // Returns the qualified callee name, or "" when the method cannot be resolved.
  std::string enqueue_method(const std::string& module_path, const std::string& method) {
    std::string name = ir::qualified_function_name(module_path, method);
    if (queued_.count(name)) return name;
    auto module_it = modules_.find(module_path);
    if (module_it == modules_.end()) return "";
    auto found = module_it->second.find_method(method);
    if (!found) return "";
    queued_.insert(name);
    pending_.push_back({module_path, method, found->graph(), true});
    return name;
  }

  // The one module instance of a module type, for a module that reaches a method as an argument
  // (a traced `sublayer(x, lambda y: self.attn(y, mask))` passes `self.attn` in): calls on it are
  // that instance's. Several instances of the type leave the call unresolved.
  std::optional<std::string> only_module_of_type(const c10::TypePtr& type) const {
    auto cls = type->cast<c10::ClassType>();
    if (!cls || !cls->is_module()) return std::nullopt;
    auto it = path_of_type_.find(cls.get());
    if (it == path_of_type_.end()) return std::nullopt;
    return it->second;
  }

  // A method of a TorchScript class object (`Pair(x, mask)` calls `Pair.__init__`): a function
  // of its own, called with the object as its first argument, so the fields it sets carry what
  // it was given.
  void enqueue_object_method(jit::Node& n, ir::Node& node) {
    auto cls = n.input(0)->type()->cast<c10::ClassType>();
    if (!cls || cls->is_module()) return;
    jit::Function* method = cls->findMethod(n.s(c10::attr::name));
    if (method == nullptr) return;
    std::string callee = enqueue_function(*method);
    if (!callee.empty()) node.set_attr("callee", ir::Attr::of_str(callee));
  }

  std::string enqueue_function(jit::Function& fn) {
    std::string name = fn.qualname().qualifiedName();
    if (queued_.count(name)) return name;
    if (!fn.isGraphFunction()) return "";
    queued_.insert(name);
    pending_.push_back({"", name, jit::toGraphFunction(fn).graph(), false});
    return name;
  }

  void import_function(const Pending& p) {
    ir::Function& f = model_.add_function(p.module_path, p.method);
    fn_ = &f;
    values_.clear();
    module_paths_.clear();
    if (p.is_method) module_paths_[p.graph->inputs().at(0)] = p.module_path;
    import_block(*p.graph->block(), f.body);
  }

  void import_block(jit::Block& from, ir::Block& to) {
    for (jit::Value* in : from.inputs()) {
      // A module handed in as an argument (a trace passes `self.quant` to a child whose
      // nn.Sequential holds it too, or a lambda's module to a sublayer): the type's one instance,
      // so that its calls are that instance's in every analysis (public round 21: a stub reached
      // so was no quant point, and stayed quantized in the float run).
      if (!module_paths_.count(in))
        if (auto path = only_module_of_type(in->type())) module_paths_[in] = *path;
      values_[in] = fn_->add_param(to, in->debugName(), type_of(in));
      values_[in]->origin = in;
    }
    for (jit::Node* n : from.nodes()) import_node(*n, to);
    for (jit::Value* out : from.outputs()) to.returns.push_back(lookup(out));
  }

  void import_node(jit::Node& n, ir::Block& block) {
    ir::Node* node = fn_->append_node(block, n.kind().toQualString());
    node->origin = &n;
    for (jit::Value* in : n.inputs()) fn_->add_input(*node, lookup(in));
    mark_names_of_library_parameters(n, *node);
    copy_attributes(n, *node);
    record_schema(n, *node);
    track_module_values(n, *node);
    node->loc = location_of(n);
    for (jit::Block* b : n.blocks()) {
      node->blocks.push_back(std::make_unique<ir::Block>());
      node->blocks.back()->owner = node;
      import_block(*b, *node->blocks.back());
    }
    for (jit::Value* out : n.outputs()) {
      values_[out] = fn_->add_output(*node, out->debugName(), type_of(out));
      values_[out]->origin = out;
    }
  }

  // A trace names a tensor it passes into a module's call after the callee's parameter when the
  // caller kept it in no variable (`self.quant(mask.float())`: the FakeQuantize's `X`). In
  // PyTorch's own modules that name is no name of the user's: messages must not call it so.
  void mark_names_of_library_parameters(jit::Node& n, ir::Node& node) {
    if (n.kind() != c10::prim::CallMethod || n.inputs().empty()) return;
    auto cls = n.input(0)->type()->cast<c10::ClassType>();
    if (!cls || !cls->name() || cls->name()->qualifiedName().rfind("__torch__.torch.", 0) != 0) return;
    const jit::Function* method = cls->findMethod(n.s(c10::attr::name));
    if (method == nullptr) return;
    const auto& parameters = method->getSchema().arguments();
    for (size_t i = 1; i < n.inputs().size() && i < parameters.size(); ++i) {
      // Made by an op the trace recorded (a scripted model's names are the user's own).
      const std::string name = n.input(i)->debugName();
      if (name.substr(0, name.find('.')) == parameters[i].name() && recorded_by_trace(*n.input(i)->node()))
        node.inputs[i]->generated_name = true;
    }
  }

  // The schema the node was matched against (ir/schema.h): the analyses read arguments by name
  // and views and in-place writes from its alias annotations.
  void record_schema(jit::Node& n, ir::Node& node) {
    // prim:: ops' schemas say little (`prim::TupleUnpack(Any tup) -> ...`): the analyses know
    // them by kind.
    const c10::FunctionSchema* schema = n.kind().is_prim() ? nullptr : n.maybeSchema();
    if (schema == nullptr) return;
    std::ostringstream text;
    text << *schema;
    node.set_attr("schema", ir::Attr::of_str(text.str()));
  }

  void copy_attributes(jit::Node& n, ir::Node& node) {
    if (n.kind() == c10::prim::Constant && n.outputs().size() == 1) {
      copy_constant(n, node);
      return;
    }
    for (jit::Symbol name : n.attributeNames())
      if (auto a = node_attr(n, name)) node.set_attr(name.toUnqualString(), *a);
  }

  void copy_constant(jit::Node& n, ir::Node& node) {
    if (auto fn_type = n.output()->type()->cast<c10::FunctionType>()) {
      node.set_attr("name", ir::Attr::of_str(fn_type->function()->qualname().qualifiedName()));
      return;
    }
    if (auto value = jit::toIValue(n.output())) node.set_attr("value", ivalue_attr(*value));
  }

  // Module-typed values get their instance path (through GetAttr chains from `self`), so that
  // calls resolve to the right instance's method and types print as Module<path>.
  void track_module_values(jit::Node& n, ir::Node& node) {
    if (n.kind() == c10::prim::GetAttr) {
      auto parent = module_paths_.find(n.input(0));
      if (parent == module_paths_.end()) return;
      const std::string& name = n.s(c10::attr::name);
      auto cls = n.output()->type()->cast<c10::ClassType>();
      if (cls && cls->is_module()) {
        module_paths_[n.output()] = parent->second.empty() ? name : parent->second + "." + name;
        return;
      }
      record_state_value(modules_.at(parent->second), name, node);
      return;
    }
    if (n.kind() == c10::prim::CallMethod) {
      auto self = module_paths_.find(n.input(0));
      std::optional<std::string> path =
          self != module_paths_.end() ? std::optional(self->second) : only_module_of_type(n.input(0)->type());
      if (!path) return enqueue_object_method(n, node);
      std::string callee = enqueue_method(*path, n.s(c10::attr::name));
      if (!callee.empty()) node.set_attr("callee", ir::Attr::of_str(callee));
      return;
    }
    if (n.kind() == c10::prim::CallFunction) {
      auto fn_type = n.input(0)->type()->cast<c10::FunctionType>();
      if (!fn_type) return;
      std::string callee = enqueue_function(*fn_type->function());
      if (!callee.empty()) node.set_attr("callee", ir::Attr::of_str(callee));
    }
  }

  // Small tensors of module state (a FakeQuantize's calibrated scale and zero point) and plain
  // numbers and flags keep their values, so rules can say concretely what a constant quantizes
  // to, and the analyses know which branches the archive fixes.
  void record_state_value(const jit::Module& module, const std::string& name, ir::Node& node) {
    if (!module.hasattr(name)) return;
    c10::IValue value = module.attr(name);
    // A converted module's output scale and zero point are plain numbers.
    if (value.isDouble()) return node.set_attr("value", ir::Attr::of_float(value.toDouble()));
    if (value.isInt()) return node.set_attr("value", ir::Attr::of_int(value.toInt()));
    // A flag (`self.use_aux`): a branch on it is fixed by the archive (Facts::folded_branch).
    if (value.isBool()) return node.set_attr("value", ir::Attr::of_bool(value.toBool()));
    if (!value.isTensor() || value.toTensor().numel() > kMaxConstantElements) return;
    node.set_attr("value", tensor_attr(value.toTensor()));
  }

  ir::Type type_of(const jit::Value* v) {
    auto it = module_paths_.find(v);
    if (it != module_paths_.end()) return ir::Type::module(it->second);
    return convert_type(v->type());
  }

  ir::Type convert_type(const c10::TypePtr& t) {
    using K = ir::Type::Kind;
    if (auto tensor = t->cast<c10::TensorType>()) {
      ir::Type out = ir::Type::tensor();
      if (auto dtype = tensor->scalarType()) out.dtype = convert_dtype(*dtype);
      if (auto sizes = tensor->sizes().concrete_sizes()) out.sizes = *sizes;
      return out;
    }
    switch (t->kind()) {
      case c10::TypeKind::IntType:
        return ir::Type::simple(K::Int);
      case c10::TypeKind::FloatType:
        return ir::Type::simple(K::Float);
      case c10::TypeKind::BoolType:
        return ir::Type::simple(K::Bool);
      case c10::TypeKind::StringType:
        return ir::Type::simple(K::Str);
      case c10::TypeKind::NoneType:
        return ir::Type::simple(K::None);
      case c10::TypeKind::DeviceObjType:
        return ir::Type::simple(K::Device);
      default:
        break;
    }
    if (auto list = t->cast<c10::ListType>()) return container(K::List, {list->getElementType()});
    if (auto opt = t->cast<c10::OptionalType>()) return container(K::Optional, {opt->getElementType()});
    if (auto tuple = t->cast<c10::TupleType>())
      return container(K::Tuple, {tuple->elements().begin(), tuple->elements().end()});
    return ir::Type::other(t->annotation_str());
  }

  ir::Type container(ir::Type::Kind kind, const std::vector<c10::TypePtr>& elements) {
    ir::Type out = ir::Type::simple(kind);
    for (const auto& e : elements) out.elements.push_back(convert_type(e));
    return out;
  }

  ir::Value* lookup(jit::Value* v) {
    auto it = values_.find(v);
    if (it == values_.end())
      throw ImportError("internal error: value %" + v->debugName() + " used before definition in " + fn_->name);
    return it->second;
  }

  jit::Module root_;
  ir::Model& model_;
  std::unordered_map<std::string, jit::Module> modules_;
  // Each module type's one instance, or nullopt when several share it (only_module_of_type).
  std::unordered_map<const c10::ClassType*, std::optional<std::string>> path_of_type_;
  std::deque<Pending> pending_;
  std::set<std::string> queued_;
  ir::Function* fn_ = nullptr;
  std::unordered_map<const jit::Value*, ir::Value*> values_;
  std::map<std::tuple<const jit::Source*, size_t, size_t>, ir::SourceLoc> locations_;
  std::unordered_map<const jit::Value*, std::string> module_paths_;
};

using ir::first_line;

// Where the library for an operator namespace is, when qlint knows: torchvision's operators
// are in the extension module Debian's python3-torchvision ships.
std::string operator_library_hint(const std::string& ns) {
  if (ns != "torchvision") return "";
  std::error_code ec;
  const std::filesystem::path dir = "/usr/lib/python3/dist-packages/torchvision";
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("_C.", 0) == 0 && it->path().extension() == ".so")
      return " (torchvision's operators are in " + it->path().string() + ")";
  }
  return "";
}

// LibTorch's own failures on a damaged archive ("isTuple() INTERNAL ASSERT FAILED ... report a
// bug to PyTorch", "Unknown opcode for unpickling") say nothing a user can act on.
std::string cannot_load(const std::string& what) {
  // A map's at() inside the deserializer: the code declares an attribute the pickled object
  // lacks (readArchive fills each slot with `state.at(name)`), or the data or debug info names
  // something the code does not define.
  if (what.find("was not in the map") != std::string::npos)
    return "is a corrupt TorchScript archive: its code and its data disagree (a class, attribute or method one of "
           "them names is missing from the other)";
  std::string line = ir::library_message(what);
  for (const char* internal : {"INTERNAL ASSERT", "report a bug", "opcode", "Expected", "expected", "unpickl",
                               "vector::", "basic_string", "std::", "stoi", "stol", "bad_alloc", "_M_"})
    if (line.find(internal) != std::string::npos)
      return "is a corrupt TorchScript archive (LibTorch cannot read its code or data)";
  return "cannot be loaded as TorchScript: " + ir::printable(line, 200);
}

// LibTorch's "Unknown builtin op: torchvision::nms." as what the user can do about it.
std::string load_failure(const std::string& what) {
  static const std::regex unknown_op(R"(Unknown builtin op: ([\w:.]+?)\.?\n)");
  std::smatch m;
  if (what.size() > (1u << 16) || !std::regex_search(what, m, unknown_op)) return cannot_load(what);
  std::string op = m[1];
  const std::string ns = op.substr(0, op.find("::"));
  // PyTorch's own namespaces: the archive was saved by a newer PyTorch than this LibTorch.
  if (ns == "aten" || ns == "prim" || ns == "quantized" || ns == "_quantized")
    return "was saved by a newer PyTorch: LibTorch " + std::string(TORCH_VERSION) + " lacks " + op +
           "; export the model with PyTorch " + std::string(TORCH_VERSION) +
           ", or run a qlint built on a newer LibTorch";
  return "uses the operator " + op +
         ", which LibTorch does not know; load the library that defines it with "
         "--load-library FILE (or operator-libraries in the configuration)" +
         operator_library_hint(op.substr(0, op.find("::")));
}

// The archive in memory without its debug info, or with the debug info probe_archive repaired:
// LibTorch reads debug info lazily and trusts it, so debug info that failed probe_archive's
// checks is dropped (locations become unknown).
std::string with_checked_debug_info(const ArchiveFile& archive, const ProbeResult& probe) {
  caffe2::serialize::PyTorchStreamReader reader(archive.reader());
  std::string out;
  {
    caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t size) {
      out.append(static_cast<const char*>(data), size);
      return size;
    });
    writer.setMinVersion(reader.version());
    for (const auto& name : reader.getAllRecords()) {
      if (name == "version" || name == ".data/version") continue;  // the writer writes its own
      const bool debug_info = name.size() >= 10 && name.compare(name.size() - 10, 10, ".debug_pkl") == 0;
      if (debug_info && !probe.debug_info_valid) continue;
      if (auto repaired = probe.repaired_debug_info.find(name);
          debug_info && repaired != probe.repaired_debug_info.end()) {
        writer.writeRecord(name, repaired->second.data(), repaired->second.size());
        continue;
      }
      auto [data, size] = reader.getRecord(name);
      writer.writeRecord(name, data.get(), size);
    }
    writer.writeEndOfFile();
  }
  return out;
}

jit::Module load_module(const ArchiveFile& archive, const ProbeResult& probe, jit::ExtraFilesMap& extra) {
  try {
    if (probe.debug_info_valid && probe.repaired_debug_info.empty())
      return jit::load(archive.reader(), c10::nullopt, extra);
    std::istringstream in(with_checked_debug_info(archive, probe));
    return jit::load(in, c10::nullopt, extra);
  } catch (const c10::Error& e) {
    throw ImportError(load_failure(e.what_without_backtrace()));
  } catch (const std::bad_alloc&) {
    throw ImportError("cannot be loaded: out of memory");
  } catch (const std::exception& e) {  // torch::jit::JITException, std::out_of_range, ...
    throw ImportError(load_failure(e.what()));
  } catch (...) {
    throw ImportError("cannot be loaded as TorchScript: an unknown error");
  }
}

// TorchScript's print() from archive code (a __setstate__ run by loading, or forward in `sim`)
// goes to stderr, one line per print, so that JSON and SARIF on stdout stay valid.
void print_to_stderr() {
  static std::once_flag once;
  std::call_once(once, [] {
    jit::setPrintHandler([](const std::string& text) {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        std::cerr << "qlint: note: the model printed: " << ir::printable(line, 200) << "\n";
    });
  });
}

}  // namespace

std::string error_summary(const c10::Error& e) { return ir::library_message(e.what_without_backtrace()); }

ir::Model import_module(const jit::Module& module, const std::string& path) {
  ir::Model model;
  model.file = path;
  ir::PhaseTimer importing(ir::Phase::Import);
  try {
    Importer(module, model).run();
  } catch (const c10::Error& e) {
    throw ImportError("could not be imported: " + error_summary(e));
  } catch (const ImportError&) {
    throw;
  } catch (const std::exception& e) {  // corrupt debug info or constants LibTorch trusted
    throw ImportError("could not be imported: " + ir::printable(first_line(e.what()), 200));
  }
  auto problems = ir::verify(model);
  if (!problems.empty()) {
    // The input past qlint's bounds, said as the user's code made it; else a bug of qlint's.
    if (std::string too_deep = ir::beyond_limits(model); !too_deep.empty()) throw ImportError(too_deep);
    throw ImportError("internal error: the imported IR is malformed: " + problems.front());
  }
  return model;
}

// Every read of an archive goes through here. QLINT_DEBUG=load logs each on stderr, so the
// tests can count them (`qlint --fix` reads the user's archive once).
jit::Module load_torchscript(const std::string& path, LoadDetails* details) {
  if (const char* debug = std::getenv("QLINT_DEBUG"); debug && std::string(debug).find("load") != std::string::npos)
    std::cerr << "qlint: debug: loading " << path << "\n";
  std::optional<ir::PhaseTimer> probing(ir::Phase::Probe);
  const ArchiveFile archive = open_archive(path);
  ProbeResult probe = probe_archive(archive);
  probing.reset();
  if (ir::limits().no_exec && !probe.load_hooks.empty())
    throw ImportError("would run its own code while loading: " + probe.load_hooks.front() +
                      ", which LibTorch calls as it loads the archive; refused because " + ir::limits().no_exec_reason);
  print_to_stderr();
  jit::ExtraFilesMap extra;
  for (const auto& name : probe.extra_files) extra[name] = "";
  std::optional<ir::PhaseTimer> loading(ir::Phase::Load);
  jit::Module module = load_module(archive, probe, extra);
  loading.reset();
  if (details != nullptr) {
    details->extra_files = std::move(extra);
    details->folder = probe.directory.folder;
    details->debug_info_dropped = !probe.debug_info_valid;
  }
  return module;
}

ir::Model import_torchscript(const std::string& path) { return import_module(load_torchscript(path), path); }

}  // namespace qlint::torchscript

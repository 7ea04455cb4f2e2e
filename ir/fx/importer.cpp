#include "ir/fx/importer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "ir/input_file.h"
#include "ir/ops.h"
#include "ir/schema.h"

namespace qlint::fx {

namespace {

using ir::DType;
using nlohmann::json;

constexpr int kFormatVersion = 1;

// A structural problem inside an FX export; import_fx words it for the user.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Python's operator module as TorchScript spells the same operations.
const std::map<std::string, std::string>& operator_kinds() {
  static const std::map<std::string, std::string> kinds = {
      {"eq", "aten::eq"},
      {"ne", "aten::ne"},
      {"lt", "aten::lt"},
      {"le", "aten::le"},
      {"gt", "aten::gt"},
      {"ge", "aten::ge"},
      {"add", "aten::add"},
      {"sub", "aten::sub"},
      {"mul", "aten::mul"},
      {"truediv", "aten::div"},
      {"floordiv", "aten::floor_divide"},
      {"mod", "aten::remainder"},
      {"pow", "aten::pow"},
      {"matmul", "aten::matmul"},
      {"neg", "aten::neg"},
      {"abs", "aten::abs"},
      {"and_", "aten::__and__"},
      {"or_", "aten::__or__"},
      {"xor", "aten::__xor__"},
      {"invert", "aten::bitwise_not"},
      {"not_", "aten::__not__"},
      {"iadd", "aten::add_"},
      {"isub", "aten::sub_"},
      {"imul", "aten::mul_"},
      {"itruediv", "aten::div_"},
  };
  return kinds;
}

// Python modules whose functions are ATen operators under the same name.
bool is_aten_namespace(const std::string& module) {
  return module == "torch" || module == "torch.nn.functional" || module == "torch._C._nn" ||
         module == "torch.functional" || module == "torch._C._VariableFunctions" || module == "torch.special";
}

// Tensor methods that are casts: `x.float()` is aten::to(x, 6) in TorchScript.
std::optional<DType> cast_method(const std::string& method) {
  static const std::map<std::string, DType> casts = {
      {"float", DType::Float32}, {"double", DType::Float64}, {"half", DType::Float16}, {"bfloat16", DType::BFloat16},
      {"bool", DType::Bool},     {"int", DType::Int32},      {"long", DType::Int64},   {"short", DType::Int16},
      {"char", DType::Int8},     {"byte", DType::UInt8},
  };
  auto it = casts.find(method);
  if (it == casts.end()) return std::nullopt;
  return it->second;
}

std::string function_kind(const std::string& target) {
  auto dot = target.rfind('.');
  std::string module = dot == std::string::npos ? "" : target.substr(0, dot);
  std::string name = target.substr(dot == std::string::npos ? 0 : dot + 1);
  if (module == "_operator" || module == "operator") {
    auto it = operator_kinds().find(name);
    if (it != operator_kinds().end()) return it->second;
  }
  if (is_aten_namespace(module)) return "aten::" + ir::canonical_aten_name(name);
  return "python::" + target;  // unknown to qlint: values flow through it unchanged
}

// An integer field in [lo, hi], or `fallback` when absent; anything else (a float, 1e999, a
// number past the limit) is a Malformed naming the field, never a float-to-int overflow.
int64_t int_field(const json& object, const char* key, int64_t fallback, int64_t lo, int64_t hi,
                  const char* limit = nullptr) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const json& v = object[key];
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw Malformed(limit ? ir::limit_error(std::string("\"") + key + "\"", limit, 0)
                          : std::string("\"") + key + "\" is out of range");
  if (!v.is_number_integer()) throw Malformed(std::string("\"") + key + "\" is not an integer");
  int64_t n = v.get<int64_t>();
  if (n > hi && limit) throw Malformed(ir::limit_error(std::string("\"") + key + "\" " + std::to_string(n), limit, 0));
  if (n < lo || n > hi) throw Malformed(std::string("\"") + key + "\" is out of range: " + std::to_string(n));
  return n;
}

int64_t max_line() { return static_cast<int64_t>(std::min<uint64_t>(ir::limits().line, INT32_MAX / 2)); }
int64_t max_column() { return static_cast<int64_t>(std::min<uint64_t>(ir::limits().column, INT32_MAX / 2)); }

DType dtype_named(const json& name) {
  if (!name.is_string()) return DType::Unknown;
  return ir::dtype_from_name(name.get<std::string>()).value_or(DType::Unknown);
}

// The type ShapeProp recorded for a node ("type", "dtype", "shape"); a tensor of unknown
// dtype when the export had no example inputs (most FX values are tensors).
ir::Type declared_type(const json& node) {
  std::string type = node.contains("type") && node["type"].is_string() ? node["type"].get<std::string>() : "Tensor";
  if (type == "Tensor" || type == "Parameter") {
    ir::Type t = ir::Type::tensor(dtype_named(node.value("dtype", json())));
    if (node.contains("shape") && node["shape"].is_array()) {
      std::vector<int64_t> sizes;
      for (const json& d : node["shape"]) {
        if (!d.is_number_integer() || (d.is_number_unsigned() && d.get<uint64_t>() > INT64_MAX))
          throw Malformed("a \"shape\" holds " + ir::printable(d.dump(), 40) + ", not a size");
        sizes.push_back(d.get<int64_t>());
      }
      t.sizes = std::move(sizes);
    }
    return t;
  }
  if (type == "int") return ir::Type::simple(ir::Type::Kind::Int);
  if (type == "float") return ir::Type::simple(ir::Type::Kind::Float);
  if (type == "bool") return ir::Type::simple(ir::Type::Kind::Bool);
  if (type == "str") return ir::Type::simple(ir::Type::Kind::Str);
  if (type == "NoneType") return ir::Type::simple(ir::Type::Kind::None);
  if (type == "tuple" || type == "Size") return ir::Type::simple(ir::Type::Kind::Tuple);
  if (type == "list") return ir::Type::simple(ir::Type::Kind::List);
  return ir::Type::other(type);
}

ir::SourceLoc location_of(const json& node) {
  ir::SourceLoc loc;
  if (!node.contains("location") || !node["location"].is_object()) return loc;
  const json& l = node["location"];
  loc.file = l.contains("file") && l["file"].is_string() ? l["file"].get<std::string>() : "";
  loc.line = static_cast<int>(int_field(l, "line", 0, 0, max_line(), "line"));
  loc.end_line = static_cast<int>(int_field(l, "end_line", loc.line, 0, max_line(), "line"));
  // Without columns (a frame Python could not place), the range is the whole line, as for
  // traced TorchScript models; 0 marks it for the importer to fill from the source line.
  loc.column = static_cast<int>(int_field(l, "column", 0, 0, max_column(), "column"));
  loc.end_column = static_cast<int>(int_field(l, "end_column", 0, 0, max_column(), "column"));
  if (loc.end_line < loc.line) loc.end_line = loc.line;
  return loc;
}

// "[json.exception.type_error.302] type must be string" -> "type must be string".
// nlohmann's wording of a wrong type ("cannot use value() with array") as the user's.
std::string without_json_prefix(const std::string& what) {
  std::string text = what;
  if (text.rfind("[json.exception.", 0) == 0) {
    auto close = text.find("] ");
    if (close != std::string::npos) text = text.substr(close + 2);
  }
  for (const char* internal : {"cannot use value() with ", "cannot use operator[] with a string argument with ",
                               "cannot use at() with ", "cannot use push_back() with "})
    if (text.rfind(internal, 0) == 0) return "expected an object, found " + text.substr(std::strlen(internal));
  if (text.rfind("key '", 0) == 0) return "a required field is missing: " + text;
  return ir::printable(text, 200);
}

class Importer {
 public:
  Importer(const json& document, const std::string& path) : doc_(document) { model_.file = path; }

  ir::Model run() {
    check_header();
    read_modules();
    read_source_lines();
    fn_ = &model_.add_function("", "forward");
    module_values_[""] = fn_->add_param(fn_->body, "self", ir::Type::module(""));
    const json& nodes = array_field(doc_, "nodes");
    if (nodes.size() > ir::limits().graph_nodes)
      throw ir::ImportError(ir::limit_error("its node count", "graph-nodes", nodes.size()));
    for (size_t i = 0; i < nodes.size(); ++i) {
      try {
        if (!nodes[i].is_object()) throw Malformed("node " + std::to_string(i) + " is not an object");
        import_node(nodes[i]);
      } catch (const json::exception& e) {
        throw Malformed("node " + std::to_string(i) + ": " + without_json_prefix(e.what()));
      }
    }
    return std::move(model_);
  }

 private:
  static const json& array_field(const json& object, const char* key) {
    if (!object.contains(key) || !object[key].is_array())
      throw Malformed(std::string("it needs a \"") + key + "\" array");
    return object[key];
  }

  void check_header() {
    if (!doc_.is_object() || doc_.value("format", "") != "qlint-fx")
      throw ir::ImportError("is JSON but not an FX export from qlint-fx-export (no \"format\": \"qlint-fx\")");
    int64_t version = 0;
    try {
      version = int_field(doc_, "version", 0, INT64_MIN, INT64_MAX);
    } catch (const Malformed&) {
      throw ir::ImportError("is an FX export without a valid \"version\"");
    }
    if (version > kFormatVersion)
      throw ir::ImportError("is an FX export of format version " + std::to_string(version) +
                            ", newer than this qlint reads (" + std::to_string(kFormatVersion) + "); update qlint");
    if (version < 1) throw ir::ImportError("is an FX export without a valid \"version\"");
  }

  void read_modules() {
    for (const json& m : array_field(doc_, "modules")) {
      if (!m.is_object()) throw Malformed("a \"modules\" entry is not an object");
      model_.modules.push_back({m.value("path", ""), m.value("class", ""), "", 0});
    }
  }

  void read_source_lines() {
    if (!doc_.contains("source_lines") || !doc_["source_lines"].is_object()) return;
    for (const auto& [file, lines] : doc_["source_lines"].items()) {
      if (!lines.is_object()) continue;
      for (const auto& [number, text] : lines.items())
        if (text.is_string())
          model_.source_lines[file][static_cast<int>(source_line_number(number))] = text.get<std::string>();
    }
  }

  static int64_t source_line_number(const std::string& key) {
    if (auto n = ir::parse_int(key, 1, max_line())) return *n;
    if (!key.empty() && key.find_first_not_of("0123456789") == std::string::npos)
      throw Malformed(ir::limit_error("the source line number " + ir::printable(key, 30), "line", 0));
    throw Malformed("\"source_lines\" has the key \"" + ir::printable(key, 30) + "\", which is not a line number");
  }

  void import_node(const json& node) {
    const std::string name = node.value("name", "");
    const std::string op = node.value("op", "");
    const std::string target = node.value("target", "");
    loc_ = location_of(node);
    complete_columns(loc_);
    scope_ = node.contains("location") && node["location"].is_object() ? node["location"].value("scope", "") : "";
    module_.reset();
    if (node.contains("module") && node["module"].is_string()) module_ = node["module"].get<std::string>();
    if (op == "placeholder") {
      bind(name, fn_->add_param(fn_->body, name, declared_type(node)));
    } else if (op == "get_attr") {
      bind(name, attribute(target, node));
    } else if (op == "call_module") {
      std::vector<ir::Value*> inputs = {module_value(target)};
      for (ir::Value* v : arguments(node)) inputs.push_back(v);
      ir::Value* out = single("prim::CallMethod", inputs, name, declared_type(node));
      out->producer->set_attr("name", ir::Attr::of_str("forward"));
      bind(name, out);
    } else if (op == "call_function") {
      bind(name, call_function(target, node));
    } else if (op == "call_method") {
      bind(name, call_method(target, node));
    } else if (op == "output") {
      const json& args = node.value("args", json::array());
      if (!args.empty()) fn_->body.returns.push_back(value_of(args[0]));
    } else {
      throw Malformed("node `" + ir::printable(name, 80) + "` has the unknown op \"" + ir::printable(op, 80) + "\"");
    }
    if (node.contains("type") && values_.count(name)) typed_.insert(values_.at(name));
    // FX names a call's result after the op (`getitem`, `to_1`, `quant`), never after the user's
    // variable: messages quote the source instead.
    if ((op == "call_module" || op == "call_function" || op == "call_method") && values_.count(name))
      values_.at(name)->generated_name = true;
  }

  void bind(const std::string& name, ir::Value* value) {
    if (name.empty()) throw Malformed("a node without a name");
    values_[name] = value;
  }

  // A location without columns covers its line's statement, from the first non-blank
  // character to the end.
  void complete_columns(ir::SourceLoc& loc) const {
    if (!loc.known() || loc.column > 0) return;
    const std::string* line = model_.source_line(loc.file, loc.line);
    if (line == nullptr) {
      loc.line = 0;  // nothing to point into
      return;
    }
    size_t first = line->find_first_not_of(" \t");
    loc.column = first == std::string::npos ? 1 : static_cast<int>(first) + 1;
    loc.end_line = loc.line;
    loc.end_column = static_cast<int>(line->size()) + 1;
  }

  ir::Node* emit(const std::string& kind) {
    ir::Node* n = fn_->append_node(fn_->body, kind);
    n->loc = loc_;
    if (!scope_.empty()) n->set_attr("scope", ir::Attr::of_str(scope_));
    if (module_) n->set_attr("module", ir::Attr::of_str(*module_));
    return n;
  }

  ir::Value* constant(const ir::Attr& value, ir::Type type) {
    ir::Node* n = fn_->append_node(fn_->body, "prim::Constant");
    n->set_attr("value", value);
    return fn_->add_output(*n, fresh_name(), std::move(type));
  }

  std::string fresh_name() { return std::to_string(++counter_); }

  ir::Value* int_constant(int64_t v) { return constant(ir::Attr::of_int(v), ir::Type::simple(ir::Type::Kind::Int)); }
  ir::Value* none_constant() { return constant(ir::Attr::none(), ir::Type::simple(ir::Type::Kind::None)); }

  // `self.a.b` as TorchScript reads it: one prim::GetAttr per step, each a Module<path>.
  // Iterative: a target is input, and "a.b.c..." may have any number of steps.
  ir::Value* module_value(const std::string& path) {
    if (std::count(path.begin(), path.end(), '.') > 1000)
      throw Malformed("the module path `" + ir::printable(path, 60) + "` has more than 1000 steps");
    std::vector<std::string> missing;  // innermost first
    std::string known = path;
    while (!module_values_.count(known)) {
      missing.push_back(known);
      auto dot = known.rfind('.');
      known = dot == std::string::npos ? "" : known.substr(0, dot);
    }
    ir::Value* owner = module_values_.at(known);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      const std::string& step = *it;
      auto dot = step.rfind('.');
      ir::Node* get = fn_->append_node(fn_->body, "prim::GetAttr");
      get->set_attr("name", ir::Attr::of_str(step.substr(dot == std::string::npos ? 0 : dot + 1)));
      fn_->add_input(*get, owner);
      owner = fn_->add_output(*get, "self." + step, ir::Type::module(step));
      module_values_[step] = owner;
    }
    return owner;
  }

  // A parameter, buffer or plain attribute: small tensors and numbers keep their values, as
  // TorchScript's constants do.
  ir::Value* attribute(const std::string& target, const json& node) {
    auto dot = target.rfind('.');
    ir::Value* owner = module_value(dot == std::string::npos ? "" : target.substr(0, dot));
    ir::Node* get = emit("prim::GetAttr");
    get->set_attr("name", ir::Attr::of_str(target.substr(dot == std::string::npos ? 0 : dot + 1)));
    fn_->add_input(*get, owner);
    ir::Type type = declared_type(node);
    if (type.is_tensor() && node.contains("values") && node["values"].is_array()) {
      ir::Attr value;
      value.kind = ir::Attr::Kind::Tensor;
      value.dtype = type.dtype;
      value.floats = node["values"].get<std::vector<double>>();
      if (type.sizes) value.ints = *type.sizes;
      get->set_attr("value", value);
    } else if (node.contains("value") && node["value"].is_number_integer()) {
      if (node["value"].is_number_unsigned() && node["value"].get<uint64_t>() > INT64_MAX)
        throw Malformed("node `" + ir::printable(node.value("name", ""), 80) + "` has an integer value out of range");
      get->set_attr("value", ir::Attr::of_int(node["value"].get<int64_t>()));
    } else if (node.contains("value") && node["value"].is_number()) {
      get->set_attr("value", ir::Attr::of_float(node["value"].get<double>()));
    }
    return fn_->add_output(*get, node.value("name", fresh_name()), type);
  }

  // Positional arguments, then keyword arguments in their recorded order.
  std::vector<ir::Value*> arguments(const json& node) {
    std::vector<ir::Value*> values;
    for (const json& arg : node.value("args", json::array())) values.push_back(value_of(arg));
    const json kwargs = node.value("kwargs", json::object());  // items() must not outlive it
    for (const auto& [key, arg] : kwargs.items()) values.push_back(value_of(arg));
    return values;
  }

  ir::Value* call_function(const std::string& target, const json& node) {
    if (target == "_operator.getitem" || target == "operator.getitem") return getitem(node);
    if (target == "builtins.getattr") return python_getattr(node);
    return operator_call(function_kind(target), node);
  }

  // A call of an ATen operator. With the schema the export matched it against (for `kind`),
  // its operands take the schema's order, keyword arguments at their place and omitted ones as
  // their defaults, as TorchScript passes them: analyses read them by name or position alike.
  ir::Value* operator_call(const std::string& kind, const json& node) {
    const std::string text =
        node.contains("schema") && node["schema"].is_string() ? node["schema"].get<std::string>() : "";
    auto schema = text.empty() ? std::nullopt : ir::parse_schema(text);
    auto operands = schema && schema->name == kind ? schema_arguments(node, *schema) : std::nullopt;
    std::string parameter_names;
    if (!operands) operands = python_arguments(node, parameter_names);
    ir::Value* out = single(kind, operands ? *operands : arguments(node), node.value("name", ""), declared_type(node));
    if (schema && operands && parameter_names.empty()) out->producer->set_attr("schema", ir::Attr::of_str(text));
    if (!parameter_names.empty()) out->producer->set_attr("parameters", ir::Attr::of_str(parameter_names));
    return out;
  }

  // A Python function's call (`F.interpolate`) with the parameters the export read off its
  // signature: operands in their order, keyword arguments at their place, omitted ones as their
  // defaults (None where the default is not a plain value), and `names` the parameters' names,
  // comma-separated, for ir::named_operand. nullopt when the export gave no parameters or the
  // call does not fit them.
  std::optional<std::vector<ir::Value*>> python_arguments(const json& node, std::string& names) {
    const json parameters = node.value("parameters", json());
    const json args = node.value("args", json::array());
    const json kwargs = node.value("kwargs", json::object());
    if (!parameters.is_array() || !args.is_array() || !kwargs.is_object() || args.size() > parameters.size())
      return std::nullopt;
    std::vector<ir::Value*> values;
    std::string joined;
    size_t matched_kwargs = 0;
    for (size_t i = 0; i < parameters.size(); ++i) {
      const json& parameter = parameters[i];
      if (!parameter.is_object() || !parameter.contains("name") || !parameter["name"].is_string()) return std::nullopt;
      const std::string name = parameter["name"].get<std::string>();
      if (name.empty() || name.find(',') != std::string::npos) return std::nullopt;
      joined += (i ? "," : "") + name;
      if (i < args.size()) {
        values.push_back(value_of(args[i]));
      } else if (kwargs.contains(name)) {
        values.push_back(value_of(kwargs[name]));
        ++matched_kwargs;
      } else {
        values.push_back(value_of(parameter.value("default", json())));
      }
    }
    if (matched_kwargs != kwargs.size()) return std::nullopt;  // a keyword the signature lacks
    names = joined;
    return values;
  }

  std::optional<std::vector<ir::Value*>> schema_arguments(const json& node, const ir::Schema& schema) {
    const json args = node.value("args", json::array());
    const json kwargs = node.value("kwargs", json::object());
    if (!args.is_array() || !kwargs.is_object() || args.size() > schema.arguments.size()) return std::nullopt;
    for (const auto& [name, value] : kwargs.items())
      if (!schema.argument_index(name)) return std::nullopt;
    std::vector<ir::Value*> values;
    for (const json& arg : args) values.push_back(value_of(arg));
    for (size_t i = args.size(); i < schema.arguments.size(); ++i) {
      const ir::SchemaArgument& argument = schema.arguments[i];
      values.push_back(kwargs.contains(argument.name) ? value_of(kwargs[argument.name]) : default_of(argument));
    }
    return values;
  }

  // A schema's default as a constant: None, a bool, a number; other spellings (`[1, 1]`,
  // `contiguous_format`, `"valid"`) as their text, which no analysis reads.
  ir::Value* default_of(const ir::SchemaArgument& argument) {
    using K = ir::Type::Kind;
    const std::string text = argument.default_value.value_or("None");
    if (text == "None") return none_constant();
    if (text == "True" || text == "False")
      return constant(ir::Attr::of_bool(text == "True"), ir::Type::simple(K::Bool));
    char* end = nullptr;
    const long long whole = std::strtoll(text.c_str(), &end, 10);
    if (end != text.c_str() && *end == '\0' && argument.type != "float" && argument.type.find('[') == std::string::npos)
      return int_constant(whole);
    const double number = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && *end == '\0' && argument.type.find('[') == std::string::npos)
      return constant(ir::Attr::of_float(number), ir::Type::simple(K::Float));
    return constant(ir::Attr::of_str(text), ir::Type::other(argument.type));
  }

  ir::Value* call_method(const std::string& method, const json& node) {
    if (auto dtype = cast_method(method)) {
      const json& args = node.value("args", json::array());
      if (args.empty()) throw Malformed("node `" + ir::printable(node.value("name", ""), 80) + "` casts nothing");
      ir::Value* tensor = value_of(args[0]);
      ir::Value* code = int_constant(ir::scalar_type_code(*dtype).value_or(-1));
      return single("aten::to", {tensor, code}, node.value("name", ""), declared_type(node));
    }
    return operator_call("aten::" + ir::canonical_aten_name(method), node);
  }

  // `x.shape` and `x.dtype` are what FX records as getattr on a value.
  ir::Value* python_getattr(const json& node) {
    const json& args = node.value("args", json::array());
    std::string attr = args.size() == 2 && args[1].is_string() ? args[1].get<std::string>() : "";
    std::vector<ir::Value*> inputs;
    if (!args.empty()) inputs.push_back(value_of(args[0]));
    ir::Value* out =
        single(attr == "shape" ? "aten::size" : "prim::GetAttr", inputs, node.value("name", ""), declared_type(node));
    if (attr != "shape") out->producer->set_attr("name", ir::Attr::of_str(attr));
    return out;
  }

  // `x[...]` on a tensor becomes TorchScript's chain: slices and selects dimension by
  // dimension, None as unsqueeze, indices after `...` counted from the end. Tensor indices
  // become aten::index; indexing a tuple or list, prim::TupleIndex / aten::__getitem__.
  ir::Value* getitem(const json& node) {
    const json& args = node.value("args", json::array());
    const std::string name = node.value("name", "");
    if (args.size() != 2)
      throw Malformed("node `" + ir::printable(name, 80) + "` indexes with " + std::to_string(args.size()) +
                      " arguments");
    ir::Value* base = value_of(args[0]);
    ir::Type result = declared_type(node);
    if (!base->type.is_tensor() || indexes_untyped_tuple(*base, args[1])) {
      bool tuple = base->type.kind == ir::Type::Kind::Tuple || base->type.is_tensor();
      return single(tuple ? "prim::TupleIndex" : "aten::__getitem__", {base, value_of(args[1])}, name, result);
    }
    json index = args[1].is_object() && args[1].contains("tuple") ? args[1]["tuple"] : json::array({args[1]});
    if (!plain_index(index)) {
      ir::Value* indices = construct("prim::ListConstruct", index, ir::Type::simple(ir::Type::Kind::List));
      return single("aten::index", {base, indices}, name, result);
    }
    ir::Value* current = base;
    int64_t dim = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      const json& item = index[i];
      if (item.is_object() && item.contains("ellipsis")) {
        dim = -consumed_dims(index, i + 1);
        continue;
      }
      bool last = i + 1 == index.size();
      ir::Type type = last ? result : ir::Type::tensor(base->type.dtype);
      std::string out = last ? name : fresh_name();
      if (item.is_null()) {
        current = single("aten::unsqueeze", {current, int_constant(dim)}, out, type);
        ++dim;
      } else if (item.is_number_integer() || (item.is_object() && item.contains("node"))) {
        current = single("aten::select", {current, int_constant(dim), value_of(item)}, out, type);
        if (dim < 0) ++dim;
      } else {
        const json& s = item.at("slice");  // [start, stop, step]; at() throws on a short one
        current = single("aten::slice",
                         {current, int_constant(dim), value_of(s.at(0)), value_of(s.at(1)),
                          s.at(2).is_null() ? int_constant(1) : value_of(s.at(2))},
                         out, type);
        ++dim;
      }
    }
    if (current == base) current = single("aten::alias", {base}, name, result);  // x[...]
    return current;
  }

  // `x.max(dim=1)[1]` in an export without example inputs: nothing says the result of max is
  // a tuple, but indexing it with a literal int only makes sense if it is one.
  bool indexes_untyped_tuple(const ir::Value& base, const json& index) const {
    return index.is_number_integer() && base.producer != nullptr && !typed_.count(&base) &&
           ir::returns_values_and_indices(base.producer->kind);
  }

  // Only ints, int-valued nodes, slices, None and at most one `...` (with no None after it):
  // what maps onto slice/select/unsqueeze.
  static bool plain_index(const json& index) {
    bool ellipsis = false;
    for (const json& item : index) {
      if (item.is_null()) {
        if (ellipsis) return false;
      } else if (item.is_object() && item.contains("ellipsis")) {
        if (ellipsis) return false;
        ellipsis = true;
      } else if (!item.is_number_integer() && !(item.is_object() && item.contains("slice"))) {
        return false;  // a tensor index, a list, a bool
      }
    }
    return true;
  }

  static int64_t consumed_dims(const json& index, size_t from) {
    int64_t n = 0;
    for (size_t i = from; i < index.size(); ++i)
      if (!index[i].is_null()) ++n;
    return n;
  }

  ir::Value* single(const std::string& kind, const std::vector<ir::Value*>& inputs, const std::string& out,
                    ir::Type type) {
    ir::Node* n = emit(kind);
    for (ir::Value* v : inputs) fn_->add_input(*n, v);
    return fn_->add_output(*n, out.empty() ? fresh_name() : out, std::move(type));
  }

  // An argument: a node reference, a literal, or a tagged Python value (docs/fx.md).
  ir::Value* value_of(const json& arg) {
    using K = ir::Type::Kind;
    if (arg.is_null()) return none_constant();
    if (arg.is_boolean()) return constant(ir::Attr::of_bool(arg.get<bool>()), ir::Type::simple(K::Bool));
    if (arg.is_number_unsigned() && arg.get<uint64_t>() > INT64_MAX)
      throw Malformed("an integer argument out of range");
    if (arg.is_number_integer()) return int_constant(arg.get<int64_t>());
    if (arg.is_number()) return constant(ir::Attr::of_float(arg.get<double>()), ir::Type::simple(K::Float));
    if (arg.is_string()) return constant(ir::Attr::of_str(arg.get<std::string>()), ir::Type::simple(K::Str));
    if (arg.is_array()) return construct("prim::ListConstruct", arg, ir::Type::simple(K::List));
    if (!arg.is_object()) throw Malformed("an argument of an unknown kind: " + ir::printable(arg.dump(), 60));
    if (arg.contains("node")) {
      auto it = values_.find(arg["node"].get<std::string>());
      if (it == values_.end())
        throw Malformed("a node uses `" + ir::printable(arg["node"].get<std::string>(), 80) + "` before it is defined");
      return it->second;
    }
    if (arg.contains("tuple")) return construct("prim::TupleConstruct", arg["tuple"], ir::Type::simple(K::Tuple));
    if (arg.contains("dict"))
      return construct("prim::DictConstruct", flattened_pairs(arg["dict"]), ir::Type::other("Dict"));
    if (arg.contains("dtype")) return int_constant(ir::scalar_type_code(dtype_named(arg["dtype"])).value_or(-1));
    if (arg.contains("float"))
      return constant(ir::Attr::of_float(special_float(arg["float"])), ir::Type::simple(K::Float));
    if (arg.contains("device"))
      return constant(ir::Attr::of_str(arg["device"].get<std::string>()), ir::Type::simple(K::Device));
    return constant(ir::Attr::of_str(arg.dump()), ir::Type::other("object"));  // slice, repr
  }

  static double special_float(const json& spelling) {
    std::string s = spelling.is_string() ? spelling.get<std::string>() : "";
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }

  // [[k1, v1], [k2, v2]] as TorchScript's prim::DictConstruct takes them: k1, v1, k2, v2.
  static json flattened_pairs(const json& pairs) {
    json flat = json::array();
    for (const json& pair : pairs) {
      flat.push_back(pair.at(0));
      flat.push_back(pair.at(1));
    }
    return flat;
  }

  // A list or tuple (its type lists the elements' types) or a dict, from its items.
  ir::Value* construct(const std::string& kind, const json& items, ir::Type type) {
    std::vector<ir::Value*> values;
    for (const json& item : items) values.push_back(value_of(item));
    ir::Node* n = emit(kind);
    for (ir::Value* v : values) fn_->add_input(*n, v);
    if (type.kind == ir::Type::Kind::List || type.kind == ir::Type::Kind::Tuple)
      for (ir::Value* v : values) type.elements.push_back(v->type);
    return fn_->add_output(*n, fresh_name(), std::move(type));
  }

  const json& doc_;
  ir::Model model_;
  ir::Function* fn_ = nullptr;
  std::map<std::string, ir::Value*> values_;         // FX node name -> value
  std::set<const ir::Value*> typed_;                 // values whose type ShapeProp recorded
  std::map<std::string, ir::Value*> module_values_;  // module path -> its GetAttr
  ir::SourceLoc loc_;                                // of the FX node being imported
  std::string scope_;                                // its Python function ("Child.forward@12")
  std::optional<std::string> module_;                // and that function's `self` ("head")
  int counter_ = 0;
};

// Parses with a bound on nesting (every walk of the document below recurses on it) and reads
// the file only when it is a regular file within the size limit (never a FIFO or a device).
template <typename Input>
json parse_document(Input&& in) {
  const uint64_t max_depth = ir::limits().json_depth;
  auto bounded = [max_depth](int depth, json::parse_event_t, json&) {
    if (static_cast<uint64_t>(depth) > max_depth)
      throw ir::ImportError(ir::limit_error("its nesting", "json-depth", 0));
    return true;
  };
  try {
    return json::parse(in, bounded);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto colon = what.find("parse error");
    throw ir::ImportError("is not valid JSON: " +
                          ir::printable(colon == std::string::npos ? what : what.substr(colon), 200));
  } catch (const json::exception& e) {  // out_of_range.406: a number such as 1e999
    throw ir::ImportError("is not valid JSON: " + without_json_prefix(e.what()));
  }
}

ir::Model import_document(const json& document, const std::string& path) {
  try {
    return Importer(document, path).run();
  } catch (const Malformed& e) {
    throw ir::ImportError(std::string("is a malformed FX export: ") + e.what());
  } catch (const json::exception& e) {
    throw ir::ImportError("is a malformed FX export: " + without_json_prefix(e.what()));
  } catch (const std::logic_error& e) {
    throw ir::ImportError("is a malformed FX export: " + ir::printable(e.what(), 200));
  }
}

}  // namespace

bool is_fx_export(const std::string& path) {
  const std::string suffix = ".json";
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ir::Model import_fx(const std::string& path) {
  // Only a regular file within the size limit (never a FIFO or a device).
  ir::check_regular_file(path, ir::limits().file_bytes, "file-bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ir::ImportError("cannot be opened for reading");
  return import_document(parse_document(in), path);
}

ir::Model import_fx_text(const std::string& text, const std::string& path) {
  if (text.size() > ir::limits().file_bytes) throw ir::ImportError(ir::limit_error("its size", "file-bytes", 0));
  return import_document(parse_document(text), path);
}

}  // namespace qlint::fx

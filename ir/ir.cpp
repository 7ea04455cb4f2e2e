#include "ir/ir.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <utility>

namespace qlint::ir {

uint64_t next_serial() {
  static std::atomic<uint64_t> made{0};
  return made++;
}

namespace {

struct DTypeName {
  DType dtype;
  const char* name;
  int64_t scalar_type;  // c10::ScalarType; -1 for none
};

constexpr std::array<DTypeName, 14> kDTypeNames = {{
    {DType::Unknown, "unknown", -1},
    {DType::Bool, "bool", 11},
    {DType::UInt8, "uint8", 0},
    {DType::Int8, "int8", 1},
    {DType::Int16, "int16", 2},
    {DType::Int32, "int32", 3},
    {DType::Int64, "int64", 4},
    {DType::Float16, "float16", 5},
    {DType::BFloat16, "bfloat16", 15},
    {DType::Float32, "float32", 6},
    {DType::Float64, "float64", 7},
    {DType::QInt8, "qint8", 12},
    {DType::QUInt8, "quint8", 13},
    {DType::QInt32, "qint32", 14},
}};

}  // namespace

const char* dtype_name(DType dtype) {
  for (const auto& entry : kDTypeNames)
    if (entry.dtype == dtype) return entry.name;
  return "unknown";
}

std::optional<DType> dtype_from_name(const std::string& name) {
  for (const auto& entry : kDTypeNames)
    if (name == entry.name) return entry.dtype;
  return std::nullopt;
}

std::optional<DType> dtype_from_scalar_type_code(int64_t code) {
  for (const auto& entry : kDTypeNames)
    if (entry.scalar_type >= 0 && entry.scalar_type == code) return entry.dtype;
  return std::nullopt;
}

std::optional<int64_t> scalar_type_code(DType dtype) {
  for (const auto& entry : kDTypeNames)
    if (entry.dtype == dtype && entry.scalar_type >= 0) return entry.scalar_type;
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> quantized_range(std::optional<DType> dtype) {
  if (dtype == DType::QInt8) return std::pair<int64_t, int64_t>(-128, 127);
  if (dtype == DType::QUInt8) return std::pair<int64_t, int64_t>(0, 255);
  if (dtype == DType::QInt32) return std::pair<int64_t, int64_t>(INT32_MIN, INT32_MAX);
  return std::nullopt;
}

bool is_floating(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 || dtype == DType::Float64;
}

bool is_integral(DType dtype) {
  return dtype == DType::UInt8 || dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32 ||
         dtype == DType::Int64;
}

bool Type::operator==(const Type& other) const {
  return kind == other.kind && dtype == other.dtype && sizes == other.sizes && name == other.name &&
         elements == other.elements;
}

Attr Attr::of_int(int64_t v) {
  Attr a;
  a.kind = Kind::Int;
  a.i = v;
  return a;
}

Attr Attr::of_float(double v) {
  Attr a;
  a.kind = Kind::Float;
  a.f = v;
  return a;
}

Attr Attr::of_bool(bool v) {
  Attr a;
  a.kind = Kind::Bool;
  a.b = v;
  return a;
}

Attr Attr::of_str(std::string v) {
  Attr a;
  a.kind = Kind::Str;
  a.s = std::move(v);
  return a;
}

Attr Attr::none() { return Attr{}; }

bool Attr::operator==(const Attr& other) const {
  return kind == other.kind && i == other.i && f == other.f && b == other.b && s == other.s && ints == other.ints &&
         floats == other.floats && dtype == other.dtype;
}

bool SourceLoc::operator==(const SourceLoc& other) const {
  return file == other.file && line == other.line && column == other.column && end_line == other.end_line &&
         end_column == other.end_column;
}

const Attr* Node::attr(std::string_view name) const {
  for (const auto& [key, value] : attrs)
    if (key == name) return &value;
  return nullptr;
}

void Node::set_attr(const std::string& name, Attr value) {
  for (auto& [key, existing] : attrs) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  attrs.emplace_back(name, std::move(value));
}

Value* Function::new_value(std::string value_name, Type type) {
  values.push_back(std::make_unique<Value>());
  Value* v = values.back().get();
  v->name = std::move(value_name);
  v->type = std::move(type);
  return v;
}

Node* Function::append_node(Block& block, std::string kind) {
  block.nodes.push_back(std::make_unique<Node>());
  Node* node = block.nodes.back().get();
  node->kind = std::move(kind);
  node->owner = &block;
  return node;
}

void Function::add_input(Node& node, Value* value) {
  node.inputs.push_back(value);
  value->users.push_back(&node);
}

Value* Function::add_output(Node& node, std::string value_name, Type type) {
  Value* v = new_value(std::move(value_name), std::move(type));
  v->producer = &node;
  node.outputs.push_back(v);
  return v;
}

Value* Function::add_param(Block& block, std::string value_name, Type type) {
  Value* v = new_value(std::move(value_name), std::move(type));
  v->param_of = &block;
  block.params.push_back(v);
  return v;
}

std::string qualified_function_name(const std::string& module_path, const std::string& method) {
  return module_path.empty() ? method : module_path + "." + method;
}

const ModuleInfo* Model::find_module(const std::string& path) const {
  for (const auto& m : modules)
    if (m.path == path) return &m;
  return nullptr;
}

const Function* Model::find_function(const std::string& name) const {
  auto it = function_index_.find(name);
  return it == function_index_.end() ? nullptr : it->second;
}

const Function* Model::function_of(const Node& node) const {
  const Block* block = node.owner;
  while (block != nullptr && block->owner != nullptr) block = block->owner->owner;
  for (const auto& f : functions)
    if (&f->body == block) return f.get();
  return nullptr;
}

Function& Model::add_function(std::string module_path, std::string method) {
  functions.push_back(std::make_unique<Function>());
  Function& f = *functions.back();
  f.name = qualified_function_name(module_path, method);
  f.module_path = std::move(module_path);
  f.method = std::move(method);
  function_index_.emplace(f.name, &f);  // the first of a name stays the one found
  return f;
}

const std::string* Model::source_line(const std::string& source_file, int line) const {
  auto file_it = source_lines.find(source_file);
  if (file_it == source_lines.end()) return nullptr;
  auto line_it = file_it->second.find(line);
  return line_it == file_it->second.end() ? nullptr : &line_it->second;
}

std::string line_seen_from(const SourceLoc& at, const SourceLoc& here) {
  if (at.file == here.file || at.file.empty()) return "line " + std::to_string(at.line);
  return at.file.substr(at.file.find_last_of('/') + 1) + ":" + std::to_string(at.line);
}

const Function* callee_of(const Model& model, const Node& call) {
  const Attr* callee = call.attr("callee");
  if (callee == nullptr || callee->kind != Attr::Kind::Str) return nullptr;
  return model.find_function(callee->s);
}

std::vector<Value*> call_arguments(const Node& call) {
  if (call.kind == "prim::CallFunction" && !call.inputs.empty()) return {call.inputs.begin() + 1, call.inputs.end()};
  return call.inputs;
}

size_t output_index(const Value& v) {
  const auto& outs = v.producer->outputs;
  return static_cast<size_t>(std::find(outs.begin(), outs.end(), &v) - outs.begin());
}

const Value* returned_for(const Model& model, const Value& v) {
  const Function* callee = v.producer != nullptr ? callee_of(model, *v.producer) : nullptr;
  if (callee == nullptr || v.producer->outputs.size() != callee->body.returns.size()) return nullptr;
  return callee->body.returns[output_index(v)];
}

}  // namespace qlint::ir

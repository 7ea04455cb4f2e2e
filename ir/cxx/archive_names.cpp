#include "ir/cxx/archive_names.h"

#include <clang/AST/RecursiveASTVisitor.h>

namespace qlint::cxx {

namespace {

using namespace clang;

// A variable outside any function: its qualified name is what tells it from another of its name.
bool qualifiable(const VarDecl& var) {
  return var.hasGlobalStorage() && !var.isStaticLocal() && !var.getDeclContext()->isFunctionOrMethod();
}

std::string qualified_name(const VarDecl& var) {
  std::string name = var.getQualifiedNameAsString();
  return name.find('(') == std::string::npos ? name : var.getNameAsString();  // `(anonymous namespace)::x`
}

// A parameter's or local's name qualified by its function's (`Det::Det::model_path`), which
// tells two classes' `model_path` apart; "" in a lambda or an anonymous namespace, whose
// qualified names (`main()::(anonymous class)::operator()`) no one would type.
std::string function_qualified_name(const VarDecl& var) {
  const auto* function = dyn_cast_or_null<FunctionDecl>(var.getDeclContext());
  if (function == nullptr) return "";
  const std::string name = function->getQualifiedNameAsString() + "::" + var.getNameAsString();
  return name.find('(') == std::string::npos ? name : "";
}

}  // namespace

ArchiveNames::ArchiveNames(const std::vector<std::string>& entries, std::map<std::string, std::string> ambiguous)
    : ambiguous_(std::move(ambiguous)) {
  for (const std::string& entry : entries)
    if (auto eq = entry.find('='); eq != std::string::npos)
      entries_.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
}

bool ArchiveNames::fits(const std::string& key, const std::string& qualified) {
  if (key.empty() || key.size() > qualified.size()) return false;
  const size_t start = qualified.size() - key.size();
  return qualified.compare(start, key.size(), key) == 0 && (start == 0 || qualified.compare(start - 2, 2, "::") == 0);
}

void ArchiveNames::collect(const std::vector<Decl*>& own) {
  if (entries_.empty()) return;
  struct References : RecursiveASTVisitor<References> {
    ArchiveNames* names;
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool VisitDeclRefExpr(DeclRefExpr* ref) {
      const auto* var = dyn_cast<VarDecl>(ref->getDecl());
      if (var == nullptr || !qualifiable(*var)) return true;
      for (const auto& [key, path] : names->entries_)
        if (fits(key, qualified_name(*var))) names->candidates_[key].insert(var->getCanonicalDecl());
      return true;
    }
  } references;
  references.names = this;
  for (Decl* decl : own) references.TraverseDecl(decl);
}

ArchiveName ArchiveNames::lookup(const DeclRefExpr* ref, const std::string& written) const {
  const auto* var = ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  const bool global = var != nullptr && qualifiable(*var);
  const std::string variable = ref != nullptr ? variable_name(*ref, written) : written;
  const std::string in_function = var != nullptr && !global ? function_qualified_name(*var) : "";
  for (const auto& [key, path] : entries_) {
    const bool bare = ref != nullptr && !global && key == ref->getDecl()->getNameAsString();
    const bool named = key == written || key == variable || (global && fits(key, qualified_name(*var))) || bare ||
                       (!in_function.empty() && key.find("::") != std::string::npos && fits(key, in_function));
    if (!named) continue;
    used_.insert(key + "=" + path);
    if (bare && !in_function.empty()) {
      parameters_.insert(key + "\n" + in_function);
      if (auto several = ambiguous_.find(key); several != ambiguous_.end())
        return {"", variable, key + "\n" + in_function + "\n" + several->second};
    }
    auto others = candidates_.find(key);
    if (!global || others == candidates_.end() || others->second.size() < 2) return {path, "", ""};
    std::string names;
    for (const VarDecl* other : others->second) names += (names.empty() ? "" : ", ") + qualified_name(*other);
    return {"", variable, key + "\n" + variable + "\n" + names};
  }
  return {"", variable, "", in_function};
}

std::string ArchiveNames::literal(const std::string& text) const {
  for (const auto& [key, path] : entries_)
    if (key == text || key == "\"" + text + "\"") {
      used_.insert(key + "=" + path);
      return path;
    }
  return "";
}

std::string variable_name(const DeclRefExpr& ref, const std::string& written) {
  if (written.find("::") != std::string::npos) return written;
  const auto* var = dyn_cast<VarDecl>(ref.getDecl());
  return var != nullptr && qualifiable(*var) ? qualified_name(*var) : ref.getDecl()->getNameAsString();
}

}  // namespace qlint::cxx

// The options for one model or source file: the command line over its configuration file. In
// the qlint_cli library, so that the compiler plugin applies configurations as `qlint` does.
#include <cstdlib>

#include "cli/commands.h"
#include "cli/config.h"
#include "ir/input_file.h"

namespace qlint::cli {

namespace {

// Like pre-commit's and direnv's trust: a configuration in the tree being scanned is someone
// else's, and its libraries run code; the user says so on the command line or in the
// environment.
bool trusts_config_libraries(const CheckOptions& command_line) {
  if (command_line.trust_config_libraries) return true;
  const char* env = std::getenv("QLINT_TRUST_CONFIG_LIBRARIES");
  return env != nullptr && std::string(env) == "1";
}

}  // namespace

CheckOptions options_for(const std::string& model, const CheckOptions& command_line) {
  if (command_line.isolated) return command_line;
  std::optional<Config> config = command_line.config_file.empty() ? find_config(model, command_line.config_roots)
                                                                  : load_config(command_line.config_file);
  if (!config) return command_line;
  CheckOptions o = command_line;
  Selection& s = o.selection;
  if (s.select.empty() && config->select) s.select = *config->select;
  s.ignore.insert(s.ignore.end(), config->ignore.begin(), config->ignore.end());
  auto for_model = config->ignored_for(model);
  s.ignore.insert(s.ignore.end(), for_model.begin(), for_model.end());
  for (const auto& [rule, severity] : config->severity) s.severity.emplace(rule, severity);
  s.ignored_for = [config](const std::string& path) { return config->ignored_for(path); };
  o.stubs.quant.insert(o.stubs.quant.end(), config->quant_stub_classes.begin(), config->quant_stub_classes.end());
  o.stubs.dequant.insert(o.stubs.dequant.end(), config->dequant_stub_classes.begin(),
                         config->dequant_stub_classes.end());
  if (!o.bits_given && config->bits) o.bits = *config->bits;
  if (!o.min_sqnr && config->min_sqnr) o.min_sqnr = config->min_sqnr;
  if (!config->operator_libraries.empty() && !trusts_config_libraries(command_line))
    throw ConfigError(ir::printable(config->file, 200) + " names operator libraries (" +
                      ir::printable(config->operator_libraries.front(), 200) +
                      "); loading a library runs its code, so qlint loads libraries a configuration names only "
                      "when trusted: pass --trust-config-libraries (or set QLINT_TRUST_CONFIG_LIBRARIES=1)");
  o.operator_libraries.insert(o.operator_libraries.end(), config->operator_libraries.begin(),
                              config->operator_libraries.end());
  try {
    validate_selection(s);
    for (const auto& [glob, rules] : config->per_file_ignores) validate_selection({rules, {}, {}, {}});
  } catch (const std::invalid_argument& e) {
    throw ConfigError(config->file + ": " + e.what());
  }
  return o;
}

}  // namespace qlint::cli

// The options for one model or source file: the command line over its configuration file. In
// the qlint_cli library, so that the compiler plugin applies configurations as `qlint` does.
#include "cli/commands.h"
#include "cli/config.h"

namespace qlint::cli {

CheckOptions options_for(const std::string& model, const CheckOptions& command_line) {
  if (command_line.isolated) return command_line;
  std::optional<Config> config =
      command_line.config_file.empty() ? find_config(model) : load_config(command_line.config_file);
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

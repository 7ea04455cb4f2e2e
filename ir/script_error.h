// A TorchScript run-time error, in the user's words. When a model's forward fails, LibTorch's
// message holds two tracebacks (serialized code, then the original Python) and the Python
// exception last; users need the exception and the line of their own code, not the serialized
// code. Pure text processing, so it is tested without LibTorch.
#pragma once

#include <string>

namespace qlint::ir {

struct ScriptError {
  std::string message;  // "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x7 and 8x4)"
  std::string file;     // the innermost frame of the user's code in the original traceback
  int line = 0;         // 0 when the message carries no original traceback
};

ScriptError parse_script_error(const std::string& what);

// "RuntimeError: ... (at model.py:11)", paths as display_path shows them.
std::string describe_script_error(const std::string& what);

// LibTorch's message as one line: its first line, and when that ends with ':' (LibTorch puts
// what it found on the next line: "... but instead found type:\nint") the next non-empty line
// too, so that no message is cut off at its colon. Blanks are collapsed; at most 300 bytes.
std::string library_message(const std::string& what);

}  // namespace qlint::ir

#!/usr/bin/python3
"""Export a PyTorch model's FX graph to JSON for qlint (format "qlint-fx", docs/fx.md).

As a library:

    import qlint_fx
    qlint_fx.export(model, "model.fx.json", example_inputs=(x,))

From the command line, for a Python file whose class (default `Model`) takes no arguments:

    qlint-fx-export model.py[:Class] [--input X.pt] -o model.fx.json

The graph comes from torch.fx symbolic tracing. QuantStub and DeQuantStub (and any module
whose class name ends in "QuantStub", or is given with --stub-class) stay leaf modules, so
qlint sees where values are quantized. Every node records the exact source range of the
Python expression that created it (Python 3.11 instruction positions), and the file keeps
those source lines, so qlint can point at the user's code like it does for TorchScript.
With example inputs, ShapeProp records each value's type, dtype and shape.
"""
import argparse
import contextlib
import importlib.util
import io
import inspect
import json
import linecache
import math
import os
import sys

import torch
import torch.fx
from torch.fx.node import _get_qualified_name

FORMAT = "qlint-fx"
VERSION = 1
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_THIS_FILE = os.path.abspath(__file__)
_SMALL_TENSOR = 16  # get_attr tensors up to this many elements keep their values


class ExportError(Exception):
    """A model that cannot be exported, worded for the user in one line."""


def _is_stub_class(cls, extra):
    name = cls.__name__
    return name.endswith("QuantStub") or name in extra or f"{cls.__module__}.{cls.__qualname__}" in extra


def _scope(frame):
    """Names the Python function a node comes from: FX flattens submodules into one graph, but
    a source edit must stay within one function's variables."""
    return f"{frame.f_code.co_qualname}@{frame.f_code.co_firstlineno}"


def _is_tracer_frame(frame):
    return os.path.abspath(frame.f_code.co_filename) == _THIS_FILE and frame.f_code.co_name in (
        "_user_location", "create_node")


def _user_location():
    """The source range of the expression being traced (the innermost frame outside torch and
    outside this file, at its current instruction) and the module that is `self` there. None
    for nodes qlint itself creates."""
    frame = inspect.currentframe()
    while frame is not None and (frame.f_code.co_filename.startswith(_TORCH_DIR) or _is_tracer_frame(frame)):
        frame = frame.f_back
    if frame is None or os.path.abspath(frame.f_code.co_filename) == _THIS_FILE:
        return None  # reached from to_json itself: placeholders and the output
    owner = frame.f_locals.get("self")
    module = owner if isinstance(owner, torch.nn.Module) else None
    return _frame_location(frame), module


def _is_pseudo_file(name):
    """Code with no file of its own: what torch.fx generates (`<eval_with_key>.7`), `<string>`."""
    return name.startswith("<")


def _file_name(code):
    """A real file as an absolute path; a pseudo-file as Python names it, since no directory
    holds it (it would otherwise read as `/cwd/<eval_with_key>.7`, a file that does not exist)."""
    name = code.co_filename
    return name if _is_pseudo_file(name) else os.path.abspath(name)


def _frame_location(frame):
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    file = _file_name(frame.f_code)
    if index >= len(positions) or positions[index][0] is None:
        return {"file": file, "line": frame.f_lineno, "scope": _scope(frame)}
    line, end_line, column, end_column = positions[index]
    location = {"file": file, "line": line, "end_line": end_line, "scope": _scope(frame)}
    if column is not None and end_column is not None:
        location["column"] = column + 1  # 1-based, end exclusive, in bytes as TorchScript counts
        location["end_column"] = end_column + 1
    return location


class _Tracer(torch.fx.Tracer):
    def __init__(self, stub_classes):
        super().__init__()
        self.stub_classes = set(stub_classes)

    def is_leaf_module(self, module, qualified_name):
        return _is_stub_class(type(module), self.stub_classes) or super().is_leaf_module(module, qualified_name)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        found = _user_location()
        if found is not None:
            location, module = found
            node.meta["qlint_location"] = location
            node.meta["qlint_module"] = self._instance_path(module)
        return node

    def _instance_path(self, module):
        """The instance path of a frame's `self` ("" for the root); None outside modules."""
        if module is None:
            return None
        try:
            return self.path_of_module(module)
        except NameError:  # a module that is not part of the traced model
            return None


def _encode(value):
    """JSON for an FX argument: node references and non-JSON Python values become tagged
    objects, so that a plain JSON string is always a Python string."""
    if isinstance(value, torch.fx.Node):
        return {"node": value.name}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):  # torch.Size included
        return {"tuple": [_encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, slice):
        return {"slice": [_encode(value.start), _encode(value.stop), _encode(value.step)]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).replace("torch.", "")}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    return {"repr": repr(value)}


def _target(node):
    if node.op == "call_function":
        return _get_qualified_name(node.target)
    return str(node.target)


def _fits(jit_type, value):
    """Whether an FX argument can be passed as a schema argument of type `jit_type`."""
    kind = jit_type.kind()
    if kind == "OptionalType":
        return value is None or _fits(jit_type.getElementType(), value)
    if isinstance(value, torch.fx.Node):
        declared = value.meta.get("type")
        tensor = declared is not None and issubclass(declared, torch.Tensor)
        if kind == "TensorType":
            return declared is None or tensor
        return not tensor or kind in ("ListType", "AnyType")
    if kind == "TensorType":
        return isinstance(value, torch.Tensor)
    if kind == "IntType":  # ScalarType, Layout and MemoryFormat are ints too
        return isinstance(value, (int, torch.dtype, torch.layout, torch.memory_format)) and not isinstance(value, bool)
    if kind == "FloatType":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "NumberType":
        return isinstance(value, (int, float, bool))
    if kind == "BoolType":
        return isinstance(value, bool)
    if kind == "StringType":
        return isinstance(value, str)
    if kind == "DeviceObjType":
        return isinstance(value, (torch.device, str))
    if kind == "ListType":
        return isinstance(value, (list, tuple, int))
    return True


def _binds(schema, args, kwargs):
    params = schema.arguments
    if len(args) > len(params) or any(p.kwarg_only for p in params[:len(args)]):
        return False
    later = {p.name: p for p in params[len(args):]}
    if any(name not in later for name in kwargs):
        return False
    if not all(_fits(p.type, a) for p, a in zip(params, args)):
        return False
    if not all(_fits(later[name].type, a) for name, a in kwargs.items()):
        return False
    return all(p.has_default_value() or p.name in kwargs for p in params[len(args):])


def _schema(node):
    """The ATen schema a call binds to, as LibTorch prints it (qlint reads arguments by name
    and views from its alias annotations); None for calls that are no ATen operator."""
    if node.op == "call_method":
        name = node.target
    elif node.op == "call_function":
        name = getattr(node.target, "__name__", None)
    else:
        return None
    if not isinstance(name, str) or not name.isidentifier():
        return None
    try:
        schemas = torch._C._jit_get_schemas_for_operator("aten::" + name)
    except RuntimeError:
        return None
    for schema in schemas:
        if schema.overload_name != "out" and _binds(schema, node.args, node.kwargs):
            return str(schema)
    return None


def _parameters(node):
    """For a call of a Python function that is no ATen operator (`F.interpolate`): its
    parameters in order, each with its default when it has a plain one, so that qlint can read
    the arguments by name as it does with a schema's. None when Python cannot tell."""
    if node.op != "call_function":
        return None
    try:
        signature = inspect.signature(node.target)
    except (TypeError, ValueError):  # builtins without a signature
        return None
    plain = (type(None), bool, int, float, str)
    out = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            return None  # `*args`: positions after it have no names
        entry = {"name": parameter.name}
        if parameter.default is not parameter.empty and isinstance(parameter.default, plain):
            entry["default"] = _encode(parameter.default)
        out.append(entry)
    return out


def _value_type(node):
    meta = node.meta.get("tensor_meta")
    if meta is not None and hasattr(meta, "dtype"):
        return {"type": "Tensor", "dtype": str(meta.dtype).replace("torch.", ""), "shape": list(meta.shape)}
    kind = node.meta.get("type")
    if kind is None:
        return {}
    if issubclass(kind, torch.Tensor):
        return {"type": "Tensor"}
    if issubclass(kind, tuple):  # torch.Size, and named tuples such as torch.return_types.max
        return {"type": "tuple"}
    return {"type": kind.__name__}


def _attribute(root, target):
    value = root
    for part in target.split("."):
        value = getattr(value, part)
    if isinstance(value, torch.Tensor):
        out = {"type": "Tensor", "dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape)}
        if value.numel() <= _SMALL_TENSOR and not value.is_quantized:
            out["values"] = [float(v) for v in value.detach().flatten().tolist()]
        return out
    if isinstance(value, (bool, int, float)):
        return {"type": type(value).__name__, "value": value}
    return {"type": type(value).__name__}


def _file_lines(file):
    """The lines of a location's file; for a pseudo-file, what Python's linecache holds for it
    (torch.fx registers the code it generates there). None when there is nothing to read."""
    if _is_pseudo_file(file):
        return [line.rstrip("\n") for line in linecache.getlines(file)] or None
    try:
        with open(file, encoding="utf-8") as f:
            return f.read().split("\n")
    except OSError:
        return None


def _source_lines(nodes):
    lines = {}
    for node in nodes:
        location = node.meta.get("qlint_location")
        if not location:
            continue
        text = _file_lines(location["file"])
        if text is None:
            continue
        for number in range(location["line"], location.get("end_line", location["line"]) + 1):
            if 0 < number <= len(text):
                lines.setdefault(location["file"], {})[str(number)] = text[number - 1]
    return lines


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def to_json(model, example_inputs=None, stub_classes=()):
    """The "qlint-fx" document for `model` (an nn.Module), as a dict."""
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"expected a torch.nn.Module, got {type(model).__name__}")
    tracer = _Tracer(stub_classes)
    try:
        graph = tracer.trace(model)
    except Exception as error:  # symbolic tracing rejects data-dependent control flow
        raise ExportError(f"torch.fx cannot trace {type(model).__name__}: {_first_line(error)}") from error
    module = torch.fx.GraphModule(tracer.root, graph)
    if example_inputs is not None:
        from torch.fx.passes.shape_prop import ShapeProp
        try:
            # ShapeProp prints a traceback of its own before raising; the error says enough.
            with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
                ShapeProp(module).propagate(*example_inputs)
        except Exception as error:  # the inputs do not fit the model
            cause = error
            while (cause.__cause__ or cause.__context__) is not None:
                cause = cause.__cause__ or cause.__context__
            raise ExportError(f"the example inputs do not run through {type(model).__name__}: "
                              f"{type(cause).__name__}: {_first_line(cause)}") from error

    nodes = []
    for node in graph.nodes:
        entry = {"name": node.name, "op": node.op, "target": _target(node),
                 "args": [_encode(a) for a in node.args],
                 "kwargs": {k: _encode(v) for k, v in node.kwargs.items()}}
        schema = _schema(node)
        if schema is not None:
            entry["schema"] = schema
        elif (parameters := _parameters(node)) is not None:
            entry["parameters"] = parameters
        if node.op == "get_attr":
            entry.update(_attribute(model, node.target))
        else:
            entry.update(_value_type(node))
        location = node.meta.get("qlint_location")
        if location:
            entry["location"] = location
            if node.meta.get("qlint_module") is not None:
                entry["module"] = node.meta["qlint_module"]  # the `self` of that source line
        nodes.append(entry)
    cls = type(model)
    return {
        "format": FORMAT,
        "version": VERSION,
        "torch_version": torch.__version__,
        "model_class": f"{cls.__module__}.{cls.__qualname__}",
        "modules": [{"path": path, "class": f"{type(m).__module__}.{type(m).__qualname__}"}
                    for path, m in model.named_modules()],
        "nodes": nodes,
        "source_lines": _source_lines(graph.nodes),
    }


def export(model, path, example_inputs=None, stub_classes=()):
    """Writes the FX graph of `model` to `path` for `qlint check`. `example_inputs` (a tuple)
    lets qlint know every value's dtype; `stub_classes` names extra quant/dequant stub classes
    to keep as leaves."""
    document = to_json(model, example_inputs, stub_classes)
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    os.replace(temporary, path)


def _load_class(spec_text):
    file, _, name = spec_text.partition(":")
    if not os.path.isfile(file):
        raise ExportError(f"{file}: no such file")
    directory = os.path.dirname(os.path.abspath(file))
    sys.path.insert(0, directory)
    module_name = "qlint_fx_user_" + os.path.splitext(os.path.basename(file))[0]
    spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise ExportError(f"{file}: cannot be imported: {type(error).__name__}: {error}") from error
    name = name or "Model"
    if not hasattr(module, name):
        raise ExportError(f"{file} defines no `{name}`")
    return getattr(module, name)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="qlint-fx-export", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="FILE.py[:NAME]: a class or function in FILE that builds the model (default Model)")
    parser.add_argument("-o", "--output", required=True, help="the .fx.json file to write")
    parser.add_argument("--input", help="a torch.save'd example input (a tensor or a tuple of tensors)")
    parser.add_argument("--stub-class", action="append", default=[], help="another stub class to keep as a leaf")
    args = parser.parse_args(argv)
    try:
        factory = _load_class(args.model)
        try:
            model = factory()
        except Exception as error:
            raise ExportError(f"{args.model}: calling it without arguments failed: {type(error).__name__}: "
                              f"{_first_line(error)}; export from Python with qlint_fx.export(model, path)") from error
        if not isinstance(model, torch.nn.Module):
            raise ExportError(f"{args.model} gives a {type(model).__name__}, not a torch.nn.Module")
        model.eval()
        example = None
        if args.input:
            try:
                example = torch.load(args.input)
            except Exception as error:
                raise ExportError(f"{args.input}: cannot be read with torch.load: {_first_line(error)}") from error
            example = tuple(example) if isinstance(example, (tuple, list)) else (example,)
        export(model, args.output, example, args.stub_class)
    except ExportError as error:
        print(f"qlint-fx-export: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

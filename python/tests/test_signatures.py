"""Every callable of cudyn._cudyn has a text signature, and it is the truth.

The C docstrings start with their signature (CPY_SIG, python/src/cudyn_py.h),
which mypy's stubtest compares with the stubs (tests/check-stubs.sh).  Here:
  - every function, method and constructor of the module has one
    (inspect.signature succeeds), so that a new one without it fails;
  - each PyArg_ParseTupleAndKeywords keyword list in python/src agrees with
    the signature written next to it: the same names in the same order, as
    many required ones as the format has before '|', keyword-only ones from
    its '$' (a renamed keyword fails here, not only in the stubs);
  - each constructor's signature agrees with __init__ / __new__ in the stubs
    (stubtest of Debian's mypy compares methods, not a C type's tp_doc).
"""

import ast
import inspect
import pathlib
import re
import types

import pytest

pytestmark = pytest.mark.mock

PYTHON = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted((PYTHON / "src").glob("*.c"))
BUILTIN = (types.BuiltinFunctionType, types.MethodDescriptorType, types.ClassMethodDescriptorType)


def module_types(mod):
    return [t for t in vars(mod).values() if isinstance(t, type) and not issubclass(t, BaseException)]


def test_every_function_method_and_constructor_has_a_signature():
    import cudyn._cudyn as c
    missing, checked = [], 0
    found = [(name, f) for name, f in vars(c).items() if isinstance(f, BUILTIN)]
    for t in module_types(c):
        found += [(f"{t.__name__}.{name}", f) for name, f in vars(t).items() if isinstance(f, BUILTIN)]
        if "__new__" in vars(t):  # a constructor of its own (tp_new): its signature is tp_doc's
            found.append((t.__name__, t))
    for name, f in found:
        checked += 1
        try:
            assert f.__text_signature__, "no __text_signature__"
            inspect.signature(f)
        except (AssertionError, ValueError, TypeError) as e:
            missing.append(f"{name}: {e}")
    assert checked > 100  # the walk found the module's callables
    assert not missing, "callables of cudyn._cudyn without a text signature (CPY_SIG):\n" + "\n".join(missing)


def test_a_signature_is_what_inspect_and_help_show():
    import cudyn._cudyn as c
    sig = inspect.signature(c.memcpy_dtod)
    assert list(sig.parameters) == ["dst", "src", "nbytes", "stream"]
    assert sig.parameters["stream"].default is None
    assert str(inspect.signature(c.DeviceArray.__dlpack__)).startswith("(self, /, *, stream=None")
    assert str(inspect.signature(c.Stream)) == "(flags=0)"
    assert not c.status_name.__doc__.startswith("status_name(")  # help() shows the text after the signature


# ---- the keyword lists in python/src against the signatures next to them

def c_strings(text):
    """the concatenated string literals of a piece of C, identifiers left out"""
    return "".join(ast.literal_eval('"' + s + '"') for s in re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def signature_args(sig_text):
    """a text signature's parameters: ([names], required, first keyword-only), its $self dropped"""
    params = sig_text[sig_text.index("("):]
    fn = ast.parse(f"def f{params.replace('$', '')}: pass").body[0].args
    names = [a.arg for a in fn.posonlyargs + fn.args + fn.kwonlyargs]
    positional = len(fn.posonlyargs) + len(fn.args)
    if params.startswith("($"):  # $module, $self, $type: not the caller's
        names, positional = names[1:], positional - 1
    required = positional - len(fn.defaults) + sum(d is None for d in fn.kw_defaults)
    return names, required, positional if fn.kwonlyargs else len(names)


def format_counts(fmt, n):
    """(required, first keyword-only) of a PyArg format string for n keywords"""
    units = re.findall(r"[|$]|[A-Za-z][&!#*]?", fmt.split(":")[0])
    required = keyword_only = None
    count = 0
    for u in units:
        if u == "|":
            required = count
        elif u == "$":
            keyword_only = count
        else:
            count += 1
    return (count if required is None else required), (n if keyword_only is None else keyword_only)


def keyword_lists():
    """(file, line, kwlist, format or None, [signatures written before its function])"""
    for path in SOURCES:
        text = path.read_text()
        for m in re.finditer(r"static char \*kw\[\] = \{(.*?)\};", text, re.S):
            kwlist = re.findall(r'"(\w+)"', m.group(1))
            before = text[:m.start()]
            start = max(before.rfind("\n}"), 0)  # the end of the function or table above
            sigs = [c_strings(re.match(r"CPY_SIG\(((?:\s*(?:\"(?:[^\"\\]|\\.)*\"|\w+))+)", s).group(1))
                    for s in re.findall(r"CPY_SIG\(.*?\"\s*[,)]", before[start:], re.S)]
            call = re.search(r"PyArg_ParseTupleAndKeywords\(\w+, \w+, (\"[^\"]*\"|\w+)", text[m.end():])
            fmt = ast.literal_eval(call.group(1)) if call and call.group(1).startswith('"') else None
            yield f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}", kwlist, fmt, sigs


def test_keyword_lists_agree_with_their_signatures():
    found, wrong = 0, []
    for where, kwlist, fmt, sigs in keyword_lists():
        found += 1
        if not sigs:
            wrong.append(f"{where}: {kwlist}: no CPY_SIG signature next to it (above its function)")
        for sig in sigs:
            names, required, keyword_only = signature_args(sig)
            if names != kwlist:
                wrong.append(f"{where}: keyword list {kwlist}, signature {sig}")
            elif fmt is not None and format_counts(fmt, len(kwlist)) != (required, keyword_only):
                wrong.append(f"{where}: format \"{fmt}\" (required, keyword-only from) "
                             f"{format_counts(fmt, len(kwlist))}, signature {sig} {(required, keyword_only)}")
    assert found > 30  # the sources were read
    assert not wrong, "\n".join(wrong)


# ---- the constructors against the stubs

def stub_constructors():
    """{class name: (stub file, its __init__ or __new__ as an ast.arguments)}"""
    out = {}
    for stub in ("_cudyn.pyi", "nccl.pyi"):
        for node in ast.parse((PYTHON / "cudyn" / stub).read_text()).body:
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name in ("__init__", "__new__"):
                        out[node.name] = (stub, item.args)
    return out


def described(args):
    """the parameters of a stub's constructor as inspect would name them"""
    P = inspect.Parameter
    out = []
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (a, d) in enumerate(zip(positional, defaults)):
        if i:  # not self or cls
            kind = P.POSITIONAL_ONLY if a in args.posonlyargs else P.POSITIONAL_OR_KEYWORD
            out.append((a.arg, kind, P.empty if d is None else ast.literal_eval(d)))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append((a.arg, P.KEYWORD_ONLY, P.empty if d is None else ast.literal_eval(d)))
    return out


def test_constructors_agree_with_the_stubs():
    import cudyn._cudyn as c
    stubs = stub_constructors()
    wrong, checked = [], 0
    for t in module_types(c):
        if "__new__" not in vars(t):
            continue
        name = "Communicator" if t is c._NcclCommunicator else t.__name__
        assert name in stubs, f"{name}: no __init__ or __new__ in its stub"
        stub, args = stubs[name]
        runtime = [(p.name, p.kind, p.default) for p in inspect.signature(t).parameters.values()]
        checked += 1
        if described(args) != runtime:
            wrong.append(f"{name} ({stub}): stub {described(args)}\n    C    {runtime}")
    assert checked >= 12
    assert not wrong, "\n".join(wrong)

"""python3 -m cudyn [--json] [--explain]: what cudainfo shows, from this module.

The driver and NVRTC this interpreter's cudyn loads, how it found them,
and one line per GPU, as ``cudainfo`` prints them; ``--explain`` adds, as
``cudainfo --explain`` does, the loader's searches and what cudyn takes of
the CUDA toolkit at run time (headers, libcudadevrt.a, nvJitLink:
``cudyn.toolkit_info()``); ``--json`` writes ``cudyn.info()`` as one
document (schema cudyn-info/1, in cudyn's share/cudyn/schema), with the
toolkit too.  A Python user checks an environment without looking
for the C tool, and sees which cudyn module answered.  The exit code is
cudainfo's: 0 GPUs listed, 3 no driver library, 4 the driver failed to
start, 5 no device, 7 a device could not be described.
"""

import argparse
import json
import os
import sys

from . import _cudyn
from ._info import info

SCHEMA = "cudyn-info/1"
# cudainfo's exit codes, TOOL_EXIT_CODES of tools/common.h (the tests
# compare them): the ones this command can end with
EXIT_OK, EXIT_USAGE, EXIT_NO_DRIVER, EXIT_INIT_FAILED, EXIT_NO_DEVICES, EXIT_PARTIAL = 0, 2, 3, 4, 5, 7
PROG = "python3 -m cudyn"


def outcome(facts):
    """(exit code, message, hint) as cudainfo decides them from the same
    facts (tool_start in tools/common.c)."""
    loader = facts.get("loader") or {}
    started = ("CUDYN_OK", "CUDYN_ERROR_NO_DEVICE")
    if loader.get("driver_status", facts["status"]) != "CUDYN_OK":
        code = EXIT_NO_DRIVER
    elif loader.get("init_status") not in started or facts["status"] not in started:
        code = EXIT_INIT_FAILED
    elif facts["device_count"] == 0:
        return EXIT_NO_DEVICES, without_hint(facts) or "the driver reports no CUDA device", facts["hint"]
    else:
        for row in facts["devices"]:
            if row.get("status") != "CUDYN_OK":
                return EXIT_PARTIAL, f"device {row['ordinal']}: {without_hint(row)}", row.get("hint")
        return EXIT_OK, None, None
    return code, without_hint(facts), facts["hint"]


def without_hint(facts):
    """The error's message without the hint its text ends with (printed
    on a line of its own, as cudainfo does)."""
    message, hint = facts.get("error") or "", facts.get("hint")
    if hint and message.endswith("; hint: " + hint):
        message = message[:-len("; hint: " + hint)]
    return message


def without_self_reference(hint):
    """Under --explain, the part of a hint that sends the reader to
    ``python3 -m cudyn --explain`` (a parenthesis, or a clause such as
    "and run ...") goes: that is what was just shown, as cudainfo drops
    its own."""
    me = f"{PROG} --explain"
    if not hint or me not in hint:
        return hint
    at = hint.index(me)
    end = at + len(me)
    opening = hint.rfind("(", 0, at)
    if opening >= 0 and ")" not in hint[opening:at] and ")" in hint[end:]:
        start = opening - 1 if hint[opening - 1:opening] == " " else opening
        return hint[:start] + hint[hint.index(")", end) + 1:]
    start = at - 4 if hint[:at].endswith("run ") else at
    for join in (" and ", "; ", ", "):
        if hint[:start].endswith(join):
            start -= len(join)
            break
    return hint[:start] + hint[end:]


def module_facts():
    """Which cudyn answered: the package's folder and its extension."""
    return {"path": os.path.dirname(os.path.abspath(__file__)), "extension": os.path.abspath(_cudyn.__file__),
            "python": sys.executable, "python_version": "%d.%d.%d" % sys.version_info[:3]}


def version_text(v):
    return "%d.%d" % (v // 1000, v % 1000 // 10) if v else "?"


def print_text(facts, module):
    loader = facts.get("loader") or {}
    print(f"cudyn {facts['cudyn_version']} (Python module, {module['path']}; Python {module['python_version']})")
    if loader.get("driver_status") == "CUDYN_OK":
        print(f"Driver:  CUDA {version_text(loader['driver_version'])}, {loader['driver_path']} "
              f"[{loader['driver_found_by']}; {loader['entry_mechanism']}, {loader['symbols_bound']} entry points "
              f"bound, {loader['symbols_missing']} absent]")
    else:
        print(f"Driver:  not loaded ({loader.get('driver_status', facts['status'])})")
    if loader.get("nvrtc_status") == "CUDYN_OK":
        print(f"NVRTC:   {version_text(loader['nvrtc_version'])}, {loader['nvrtc_path']} [{loader['nvrtc_found_by']}]")
    elif loader.get("nvrtc_status") not in (None, "CUDYN_ERROR_NOT_READY"):
        print("NVRTC:   not found (run-time compilation unavailable)")
    if not facts["devices"]:
        print("Devices: none")
        return
    print(f"Devices: {facts['device_count']} visible")
    for row in facts["devices"]:
        if row.get("status") != "CUDYN_OK":
            print(f"  {row['ordinal']}  error: {row.get('error')}")
            continue
        print(f"  {row['ordinal']}  {row['name']}  sm_{row['cc_major']}{row['cc_minor']}  "
              f"{row['total_memory'] / (1 << 30):.1f} GiB  {row['multiprocessors']} SMs  {row['pci_bus_id']}  "
              f"{row.get('uuid_string') or '-'}")


def print_explain(facts):
    """The searches and the toolkit, as cudainfo --explain prints them."""
    loader = facts.get("loader") or {}
    print(f"\nLoader search (libcuda):\n{loader.get('driver_trace') or ''}", end="")
    print(f"\nLoader search (libnvrtc):\n{loader.get('nvrtc_trace') or ''}", end="")
    t = facts.get("toolkit") or {}
    if "include_path" not in t:
        print(f"\nToolkit at run time: not known ({t.get('error')})")
        return
    print("\nToolkit at run time (headers for NVRTC, libcudadevrt.a, nvJitLink):")
    if t["include_path"]:
        print(f"  headers: {t['include_path']} [{t['headers_found_by']}]")
    else:
        print("  headers: none found: kernels can include cudyn's C library headers only")
    if t["cudadevrt"]:
        print(f"  libcudadevrt.a: {t['cudadevrt']} [{t['cudadevrt_found_by']}]")
    else:
        print("  libcudadevrt.a: none found: dynamic parallelism cannot be linked")
    if t["nvjitlink_status"] == "CUDYN_OK":
        print(f"  nvJitLink: {version_text(t['nvjitlink_version'])}, {t['nvjitlink_path']} [{t['nvjitlink_found_by']}]")
    else:
        print("  nvJitLink: none found: cudyn links with the driver's linker")
    print(f"Toolkit search:\n{t['trace'] or ''}", end="")
    print(f"Loader search (libnvJitLink):\n{t['nvjitlink_trace'] or ''}", end="")


def toolkit_facts():
    """cudyn.toolkit_info(), or why it could not be read."""
    try:
        return _cudyn.toolkit_info()
    except _cudyn.Error as e:
        return {"status": getattr(e, "status_name", type(e).__name__), "error": str(e),
                "hint": getattr(e, "hint", None) or None}


def json_value(value):
    """What json cannot write itself: bytes (a UUID) as hexadecimal."""
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    raise TypeError(f"{type(value).__name__} is not JSON")


def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description="The GPUs, driver and NVRTC this Python's cudyn finds, "
                                "as cudainfo shows them.")
    p.add_argument("--json", action="store_true", help=f"one JSON document (schema {SCHEMA})")
    p.add_argument("--explain", action="store_true",
                   help="the loader's searches, and the toolkit's headers, libcudadevrt.a and nvJitLink")
    p.add_argument("--version", action="version", version=f"{PROG} {_cudyn.version()}")
    args = p.parse_args(argv)
    facts = info()
    if args.json or args.explain:
        facts["toolkit"] = toolkit_facts()
    module = module_facts()
    code, message, hint = outcome(facts)
    if args.explain:
        hint = without_self_reference(hint)
    if args.json:
        doc = {"schema": SCHEMA, **facts, "module": module,
               "result": {"exit_code": code, "status": "ok" if code == EXIT_OK else "error", "message": message,
                          "hint": hint}}
        json.dump(doc, sys.stdout, default=json_value)
        print()
    else:
        print_text(facts, module)
        if args.explain:
            print_explain(facts)
    if message:
        print(f"{PROG}: {message}", file=sys.stderr)
    if hint:
        print(f"{PROG}: hint: {hint}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks that the package index, Debian and RPM say the same things of cudyn.

    packaging/check-metadata.py [--top DIR] [--installed PYTHON]

The facts and where each is stated first:
  - the version: configure.ac's AC_INIT (setup.py and make read it there);
    packaging/debian/changelog's newest entry and cudyn.spec's Version
    must match it;
  - the Python module's summary, licence and Python floor: pyproject.toml's
    description, license and requires-python; python3-cudyn's synopsis
    (packaging/debian/control), X-Python3-Version and the licence of
    debian/copyright's `Files: *` (Expat is MIT's name there), and the
    spec's python3-cudyn Summary, python_floor and License must match; the
    classifiers name the floor's version and none below it;
  - each package's summary and description: Debian's libcudyn1,
    libcudyn-dev, cudyn-tools and python3-cudyn and the spec's cudyn-libs,
    cudyn-devel, cudyn and python3-cudyn say the same (the words compared,
    not their wrapping);
  - the weak dependencies on what cudyn opens at run time (the library's
    .note.dlopen; tests/check-dlopen-note.sh compares it with
    debian/control): the spec recommends and suggests the same sonames that
    debian/control names as packages (libX.so.N is Debian's libXN).
With --installed PYTHON, what that interpreter's installed cudyn says
(`pip show cudyn` and importlib.metadata: version, summary, licence,
Requires-Python, and the classifiers where it has them) must match too:
the wheel's in .ci/wheel.sh, and Debian's or the RPM's installed module.
Exit 0 when all agree, 1 otherwise (each difference said).
"""

import argparse
import os
import re
import subprocess
import sys

try:
    import tomllib
except ImportError:  # Python before 3.11
    tomllib = None

# the spec's packages and Debian's, the same files in each
PACKAGES = {"cudyn-libs": "libcudyn1", "cudyn-devel": "libcudyn-dev", "cudyn": "cudyn-tools",
            "python3-cudyn": "python3-cudyn"}
# Debian's licence names that are another's in SPDX
SPDX = {"Expat": "MIT"}


def read(top, relative):
    with open(os.path.join(top, relative), encoding="utf-8") as f:
        return f.read()


def words(text):
    """Paragraphs of words: what a description says, whatever its wrapping."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]


# ---------------------------------------------------------------- sources

def configure_version(top):
    m = re.search(r"^AC_INIT\(\[[^]]*\], \[([^]]*)\]", read(top, "configure.ac"), re.M)
    return m.group(1) if m else None


def pyproject(top):
    return tomllib.loads(read(top, "pyproject.toml"))["project"]


def python_floor(requires):
    m = re.fullmatch(r"\s*>=\s*(\d+\.\d+)\s*", requires or "")
    return m.group(1) if m else None


def debian_paragraphs(top):
    """debian/control's paragraphs as {field: value}, comments left out."""
    text = "\n".join(line for line in read(top, "packaging/debian/control").splitlines()
                     if not line.startswith("#"))
    paragraphs = []
    for block in re.split(r"\n\s*\n", text.strip()):
        fields, name = {}, None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and name:
                fields[name] += "\n" + line
            else:
                name, _, value = line.partition(":")
                fields[name] = value.strip()
        paragraphs.append(fields)
    return paragraphs


def debian_description(value):
    """(synopsis, long description) of a Description field."""
    synopsis, _, rest = value.partition("\n")
    lines = ["" if line.strip() == "." else line[1:] for line in rest.splitlines()]
    return synopsis.strip(), "\n".join(lines)


def debian_relation(value):
    """What a relation field names, as the spec names it: a library package
    (libXN) by its soname (libX.so.N), cudyn's packages by their RPM names,
    any other package by its name."""
    rpm_names = {d: r for r, d in PACKAGES.items()}
    items = set()
    for name in re.findall(r"[a-z0-9][a-z0-9.+-]*", re.sub(r"\([^)]*\)", "", value or "")):
        m = re.fullmatch(r"(lib[a-z0-9+-]*?[a-z+-])(\d+(?:\.\d+)*)", name)
        items.add(rpm_names.get(name) or (f"{m.group(1)}.so.{m.group(2)}" if m else name))
    return items


def debian(top):
    facts = {"packages": {}}
    for p in debian_paragraphs(top):
        if "Source" in p:
            facts["python_floor"] = python_floor(p.get("X-Python3-Version"))
        elif "Package" in p:
            facts["packages"][p["Package"]] = {
                "description": debian_description(p.get("Description", "")),
                "recommends": debian_relation(p.get("Recommends")),
                "suggests": debian_relation(p.get("Suggests")),
                "fields": p,
            }
    m = re.match(r"\S+ \(([^)-]+)(?:-[^)]*)?\)", read(top, "packaging/debian/changelog"))
    facts["version"] = m.group(1) if m else None
    copyright_text = read(top, "packaging/debian/copyright")
    m = re.search(r"^Files: \*\n(?:\S.*\n)*?License: (\S+)", copyright_text, re.M)
    facts["license"] = SPDX.get(m.group(1), m.group(1)) if m else None
    return facts


def spec(top):
    """cudyn.spec's preamble and %package sections, their tags and %description."""
    text = read(top, "packaging/rpm/cudyn.spec")
    globals_ = dict(re.findall(r"^%global\s+(\w+)\s+(.*?)\s*$", text, re.M))
    name = re.search(r"^Name:\s*(\S+)", text, re.M).group(1)

    def package_name(args):
        args = args.split()
        if not args:
            return name
        full = args[1] if args[0] == "-n" else f"{name}-{args[0]}"
        return full.replace("%{name}", name).replace("%{python3_pkgversion}", "3")

    packages, descriptions, current, section = {}, {}, name, "preamble"
    packages[name] = {"tags": [], "description": ""}
    for line in text.splitlines():
        m = re.match(r"^%(package|description|prep|build|install|check|files|changelog|if|endif|else)\b\s*(.*)$", line)
        if m and m.group(1) in ("package", "description", "prep", "build", "install", "check", "files", "changelog"):
            section = m.group(1)
            if section in ("package", "description"):
                current = package_name(m.group(2))
                packages.setdefault(current, {"tags": [], "description": ""})
            continue
        if section in ("preamble", "package"):
            t = re.match(r"^([A-Za-z]+):\s*(.*?)\s*$", line)
            if t:
                packages[current]["tags"].append((t.group(1), t.group(2)))
        elif section == "description":
            descriptions[current] = descriptions.get(current, "") + line + "\n"
    for pkg, description in descriptions.items():
        packages[pkg]["description"] = description

    def tag(pkg, key):
        values = [v for k, v in packages.get(pkg, {}).get("tags", []) if k == key]
        return values

    def relation(pkg, key):
        """Sonames (libX.so.N()(64bit)) and package names, macros expanded."""
        items = set()
        for value in tag(pkg, key):
            value = value.replace("%{name}", name).replace("%{python3_pkgversion}", "3")
            value = re.sub(r"%\{\?_isa\}|\(\)\(64bit\)|[<>=]+\s*\S+|[()]|\b(or|and|if|with)\b", " ", value)
            items.update(value.split())
        return items

    main = dict(packages[name]["tags"])
    return {
        "version": main.get("Version"),
        "license": main.get("License"),
        "python_floor": globals_.get("python_floor"),
        "summary": lambda pkg: (tag(pkg, "Summary") or [None])[0],
        "description": lambda pkg: packages.get(pkg, {}).get("description", ""),
        "recommends": lambda pkg: relation(pkg, "Recommends"),
        "suggests": lambda pkg: relation(pkg, "Suggests"),
        "packages": set(packages),
    }


def installed(python):
    """What PYTHON's installed cudyn says: pip show's fields and
    importlib.metadata's Requires-Python and classifiers."""
    facts = {}
    show = subprocess.run([python, "-m", "pip", "show", "cudyn"], stdout=subprocess.PIPE, universal_newlines=True,
                          check=True).stdout
    for line in show.splitlines():
        key, _, value = line.partition(": ")
        facts[key] = value.strip()
    meta = subprocess.run([python, "-c", "import importlib.metadata as m; d = m.metadata('cudyn'); "
                           "print(d.get('Requires-Python') or ''); print(*(d.get_all('Classifier') or []), sep='\\n')"],
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.splitlines()
    facts["Requires-Python"] = meta[0] if meta else ""
    facts["Classifier"] = [c for c in meta[1:] if c]
    return facts


# ---------------------------------------------------------------- checks

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--top", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   help="the source tree (default: this file's)")
    p.add_argument("--installed", metavar="PYTHON", help="also the installed cudyn of this interpreter")
    args = p.parse_args()
    if tomllib is None:
        print("check-metadata: needs Python 3.11 or later (tomllib)")
        return 77
    top = args.top
    failures = []

    def same(what, values, may_be_empty=False):
        """values: [(where, value)]; all must be equal to the first."""
        first = values[0][1]
        shown = first if not isinstance(first, (set, list)) else ", ".join(sorted(first)) or "none"
        if first in (None, "", set()) and not may_be_empty:
            failures.append(f"{what}: {values[0][0]} gives none")
        for where, value in values[1:]:
            if value != first and isinstance(first, set):
                failures.append(f"{what}: {where} says {', '.join(sorted(value - first)) or 'nothing'} more and "
                                f"{', '.join(sorted(first - value)) or 'nothing'} less than {values[0][0]}")
            elif value != first:
                failures.append(f"{what}: {where} says {value!r}, {values[0][0]} {first!r}")
        print(f"{what}: {shown if len(str(shown)) < 90 else str(shown)[:87] + '...'} "
              f"({', '.join(w for w, _ in values)})")

    project, deb, rpm = pyproject(top), debian(top), spec(top)
    version = configure_version(top)
    floor = python_floor(project.get("requires-python"))
    module_summary = project.get("description")
    licence = (project.get("license") or {}).get("text")
    got = installed(args.installed) if args.installed else None

    same("version", [("configure.ac", version), ("debian/changelog", deb["version"]), ("cudyn.spec", rpm["version"])]
         + ([("pip show", got.get("Version"))] if got else []))
    same("licence", [("pyproject.toml", licence), ("debian/copyright", deb["license"]), ("cudyn.spec", rpm["license"])]
         + ([("pip show", got.get("License"))] if got else []))
    same("Python floor", [("pyproject.toml", floor), ("debian/control", deb.get("python_floor")),
                          ("cudyn.spec", rpm["python_floor"])]
         + ([("installed Requires-Python", python_floor(got.get("Requires-Python")))] if got else []))
    same("module summary", [("pyproject.toml", module_summary),
                            ("debian/control", deb["packages"].get("python3-cudyn", {}).get("description", [None])[0]),
                            ("cudyn.spec", rpm["summary"]("python3-cudyn"))]
         + ([("pip show", got.get("Summary"))] if got else []))

    versions = sorted(re.findall(r"^Programming Language :: Python :: (3\.\d+)$", "\n".join(project.get("classifiers", [])),
                                 re.M), key=lambda v: tuple(map(int, v.split("."))))
    if not floor or floor not in versions:
        failures.append(f"classifiers: no 'Programming Language :: Python :: {floor}' for the floor")
    below = [v for v in versions if floor and tuple(map(int, v.split("."))) < tuple(map(int, floor.split(".")))]
    if below:
        failures.append(f"classifiers: Python {', '.join(below)}, below the floor {floor}")
    print(f"classifiers: Python {', '.join(versions)}")
    # (make install's .dist-info, which Debian's and the RPM packages hold,
    # has pip show's fields and Requires-Python, and no classifiers)
    if got and got["Classifier"] and sorted(got["Classifier"]) != sorted(project.get("classifiers", [])):
        failures.append("the installed classifiers are not pyproject.toml's")

    for rpm_name, deb_name in PACKAGES.items():
        if rpm_name not in rpm["packages"]:
            failures.append(f"cudyn.spec has no package {rpm_name}")
            continue
        if deb_name not in deb["packages"]:
            failures.append(f"debian/control has no package {deb_name}")
            continue
        synopsis, long_text = deb["packages"][deb_name]["description"]
        same(f"{rpm_name} summary", [(f"debian {deb_name}", synopsis), (f"spec {rpm_name}", rpm["summary"](rpm_name))])
        if words(long_text) != words(rpm["description"](rpm_name)):
            failures.append(f"{rpm_name} description: the spec's is not debian {deb_name}'s")
        for kind in ("recommends", "suggests"):
            same(f"{rpm_name} {kind}", [(f"debian {deb_name}", deb["packages"][deb_name][kind]),
                                        (f"spec {rpm_name}", rpm[kind](rpm_name))], may_be_empty=True)

    for line in failures:
        print("FAIL:", line)
    print("check-metadata: " + ("they differ" if failures else "pyproject.toml, Debian and RPM agree"
                                 + (" with the installed module" if got else "")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

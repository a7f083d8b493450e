#!/usr/bin/env python3
"""Builds of the Python module side by side: the launch-loop and
prepared-call rows of `make bench-peers` (bench/peers.py's cudyn worker,
the same code) for each build, in one run.  The builds take turns, turn
after turn, each in a process of its own pinned to the same CPU (the one
next to the GPU, as bench-peers chooses), so that what the machine does
meanwhile falls on all of them alike; each row's value is the median of
its turns (each turn the worker's median of --rounds rounds), beside its
ratio to the first build's.

A build is NAME=INTERPRETER, an interpreter with cudyn installed (a
wheel in a virtual environment), or NAME=INTERPRETER:DIR, one that
imports the cudyn package in DIR (a build's python/staged, run from that
build's top directory so that its lib/.libs is found).  With --mock
LIBCUDA (and --mock-nvrtc) the launches go to the mock driver, as on a
machine without a GPU; the real driver otherwise.

    bench/python_builds.py [--turns 5] [--rounds 7] [--launches 100000]
                           [--mock LIBCUDA [--mock-nvrtc LIBNVRTC]] NAME=INTERPRETER[:DIR] ...

e.g., the abi3 wheel beside the version-specific one, in their virtual
environments:
    bench/python_builds.py version-specific=/tmp/vs/bin/python abi3=/tmp/abi3/bin/python
"""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers  # noqa: E402 (bench/peers.py: its worker, its CPU and its runner)

ROWS = (("launch_us", "empty-kernel launch loop"), ("launch_prepared_us", "launch loop, prepared call"))


def build_env(interpreter, where, args):
    """The environment of one build's processes."""
    env = peers.python_module_env(argparse.Namespace(cudyn_python=where or "installed"))
    if args.mock:
        env["CUDYN_LIBCUDA"] = os.path.abspath(args.mock)
        if args.mock_nvrtc:
            env["CUDYN_LIBNVRTC"] = os.path.abspath(args.mock_nvrtc)
    return env


def module_file(interpreter, env):
    """The extension a build imports (_cudyn.abi3.so, _cudyn.cpython-312-...)."""
    p = subprocess.run([interpreter, "-c", "import cudyn._cudyn as m, sys; print(m.__file__, sys.version.split()[0])"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, universal_newlines=True)
    return p.stdout.strip() if p.returncode == 0 else f"not importable: {peers.one_line(p.stderr)}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("builds", nargs="+", metavar="NAME=INTERPRETER[:DIR]")
    p.add_argument("--turns", type=int, default=5, help="turns of each build (default 5)")
    p.add_argument("--rounds", type=int, default=7, help="rounds of each row in a turn (default 7)")
    p.add_argument("--launches", type=int, default=100000, help="launches per round (default 100000)")
    p.add_argument("--mock", metavar="LIBCUDA", help="the mock driver (no GPU here)")
    p.add_argument("--mock-nvrtc", metavar="LIBNVRTC", help="the mock NVRTC, with --mock where no NVRTC is installed")
    args = p.parse_args()
    builds = []
    for b in args.builds:
        name, eq, rest = b.partition("=")
        interpreter, _, where = rest.partition(":")
        if not eq or not name or not interpreter:
            p.error(f"{b}: not NAME=INTERPRETER[:DIR]")
        env = build_env(interpreter, where, args)
        builds.append((name, interpreter, env))
        print(f"{name}: {module_file(interpreter, env)}")
    cpu = peers.gpu_local_cpu()
    print(f"each process pinned to CPU {cpu}; {args.turns} turns of {args.rounds} rounds of {args.launches} launches")
    # the worker's --mock stops after these rows: the rest is the GPU's work, not the builds'
    counts = ["--launches", str(args.launches), "--rounds", str(args.rounds), "--mock"]
    values = {name: {key: [] for key, _ in ROWS} for name, _, _ in builds}
    for turn in range(args.turns):
        for name, interpreter, env in builds:
            facts, error = peers.run_lines([interpreter, os.path.join(HERE, "peers.py"), "--worker", "cudyn"] + counts,
                                           env=env, cpu=cpu)
            if error or "skip" in facts:
                print(f"{name}: {error or facts['skip']}")
                return 1
            for key, _ in ROWS:
                values[name][key].append(float(facts[key]))
            print(f"turn {turn + 1} {name}: " + ", ".join(f"{key} {facts[key]}" for key, _ in ROWS), flush=True)
    first = builds[0][0]
    print(f"\n{'us per launch, median of turns':36}" + "".join(f"{name:>24}" for name, _, _ in builds))
    for key, title in ROWS:
        cells = []
        for name, _, _ in builds:
            median = statistics.median(values[name][key])
            ratio = median / statistics.median(values[first][key])
            cells.append(f"{median:.4f} ({ratio:.3f}x)")
        print(f"{title:36}" + "".join(f"{c:>24}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
